package dev.sluice.core.provider.sse;

import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A usage parser over a server-sent event stream: feeds the bytes to an {@link SseEventReader}
 * and hands each complete event to {@link #onEvent}. A fault while parsing stops the parsing,
 * never the call: settlement then uses what was counted so far (fail open).
 */
public abstract class SseUsageParser implements UsageParser {

    private final SseEventReader sse = new SseEventReader(this::onEvent);
    /** One per stream: its scratch serves every event. */
    private final JsonWalker walker = new JsonWalker();

    private boolean broken;

    private static final String EVENT_STREAM = "text/event-stream";

    /**
     * Whether a response's {@code Content-Type} names an event stream, in any case and with any
     * parameters; compared in place, not through a lower-cased copy, as every answer asks it.
     */
    public static boolean isEventStream(String contentType) {
        if (contentType == null) {
            return false;
        }
        for (int i = 0; i <= contentType.length() - EVENT_STREAM.length(); i++) {
            if (contentType.regionMatches(true, i, EVENT_STREAM, 0, EVENT_STREAM.length())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public final void accept(byte[] chunk, int offset, int length) {
        if (broken) {
            return;
        }
        try {
            sse.feed(chunk, offset, length);
        } catch (RuntimeException fault) {
            broken = true; // fail open: the call goes on, settlement uses what was counted
        }
    }

    @Override
    public final void finish() {
        if (broken) {
            return;
        }
        try {
            sse.finish();
        } catch (RuntimeException fault) {
            broken = true;
        }
    }

    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

    /**
     * One event of the stream, its data in {@code data[offset, offset+length)} (UTF-8), valid only
     * during the call: walk it, do not keep it. A runtime exception stops the parsing of this stream.
     *
     * @param name the {@code event:} field, or {@link SseEventReader#DEFAULT_NAME}
     */
    protected abstract void onEvent(String name, byte[] data, int offset, int length);

    /** Walks an event's JSON data (see {@link JsonWalker#walkNext}); false when it was not a whole document. */
    protected final boolean walk(byte[] data, int offset, int length, JsonVisitor visitor) {
        return walker.walkNext(data, offset, length, visitor);
    }

    /** The OpenAI-style end of stream marker {@code data: [DONE]}. */
    protected static boolean isDone(byte[] data, int offset, int length) {
        return Arrays.equals(data, offset, offset + length, DONE, 0, DONE.length);
    }
}
