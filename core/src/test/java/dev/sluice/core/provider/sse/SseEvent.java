package dev.sluice.core.provider.sse;

/**
 * One server-sent event, decoded, as the tests compare them: its name ({@code event:} field,
 * {@link SseEventReader#DEFAULT_NAME} by default) and its data lines joined by newlines. Immutable.
 * The reader itself lends each event's bytes ({@link SseEventReader.Listener}); {@link #into}
 * decodes them.
 */
public final class SseEvent {

    /** The name of an event that carried no {@code event:} field. */
    public static final String DEFAULT_NAME = SseEventReader.DEFAULT_NAME;

    private final String name;
    private final String data;

    private SseEvent(String name, String data) {
        this.name = name;
        this.data = data;
    }

    /** A listener that decodes each event the reader lends and adds it to {@code events}. */
    public static SseEventReader.Listener into(java.util.List<SseEvent> events) {
        return (name, data, offset, length) ->
                events.add(of(name, new String(data, offset, length, java.nio.charset.StandardCharsets.UTF_8)));
    }

    public static SseEvent of(String name, String data) {
        return new SseEvent(name == null || name.isEmpty() ? DEFAULT_NAME : name, data == null ? "" : data);
    }

    /** The {@code event:} field, or {@link #DEFAULT_NAME}. */
    public String name() {
        return name;
    }

    /** The data, multi-line data joined with {@code \n}; empty when the event had an empty {@code data:} line. */
    public String data() {
        return data;
    }

    /** The OpenAI-style end of stream marker {@code data: [DONE]}. */
    public boolean isDone() {
        return "[DONE]".equals(data);
    }

    @Override
    public String toString() {
        return "SseEvent{" + name + ": " + (data.length() > 80 ? data.substring(0, 80) + "..." : data) + '}';
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SseEvent && ((SseEvent) o).name.equals(name) && ((SseEvent) o).data.equals(data);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + data.hashCode();
    }
}
