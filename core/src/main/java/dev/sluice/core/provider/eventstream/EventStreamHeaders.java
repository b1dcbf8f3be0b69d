package dev.sluice.core.provider.eventstream;

import java.util.Arrays;

/**
 * The string-valued headers of one event-stream message ({@code :message-type},
 * {@code :event-type}, {@code :exception-type}, {@code :content-type}...). Reused from message to
 * message by {@link EventStreamDecoder}: read it during {@link EventStreamDecoder.Listener#onMessage},
 * do not keep it.
 */
public final class EventStreamHeaders {

    /** {@code :message-type}: {@code event}, {@code exception} or {@code error}. */
    public static final String MESSAGE_TYPE = ":message-type";
    /** {@code :event-type} of an event, e.g. {@code metadata}, {@code chunk}. */
    public static final String EVENT_TYPE = ":event-type";
    /** {@code :exception-type} of an exception, e.g. {@code throttlingException}. */
    public static final String EXCEPTION_TYPE = ":exception-type";
    /** {@code :error-code} of an error message. */
    public static final String ERROR_CODE = ":error-code";

    private String[] pairs = new String[8];
    private int size;

    EventStreamHeaders() {}

    void clear() {
        Arrays.fill(pairs, 0, size, null);
        size = 0;
    }

    void add(String name, String value) {
        if (size + 2 > pairs.length) {
            pairs = Arrays.copyOf(pairs, pairs.length * 2);
        }
        pairs[size++] = name;
        pairs[size++] = value;
    }

    /** The value of the first string header of this name (exact case, as the format writes them), or null. */
    public String get(String name) {
        for (int i = 0; i < size; i += 2) {
            if (pairs[i].equals(name)) {
                return pairs[i + 1];
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("{");
        for (int i = 0; i < size; i += 2) {
            s.append(i == 0 ? "" : ", ").append(pairs[i]).append('=').append(pairs[i + 1]);
        }
        return s.append('}').toString();
    }
}
