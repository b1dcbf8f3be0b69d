package dev.sluice.core.provider.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An incremental parser of a {@code text/event-stream} body, fed byte chunks exactly as they come
 * off the wire, however they are split. It follows the WHATWG rules that matter to LLM streams:
 * lines end in {@code \n}, {@code \r\n} or {@code \r} (a {@code \r\n} may straddle two chunks);
 * {@code data:} lines of one event are joined with {@code \n}; {@code event:} names it; lines
 * starting with {@code :} are comments; a blank line dispatches; a leading BOM is skipped.
 * {@code id:} and {@code retry:} are ignored because no provider protocol needs them here.
 *
 * <p>Bytes are kept until a line ends and decoded then, so a UTF-8 character split across chunks
 * is never mangled (line ends are ASCII and never occur inside a multi-byte sequence).
 *
 * <p>Memory is bounded: an event whose line or data would exceed {@code maxEventBytes} is dropped
 * whole and counted in {@link #droppedEvents()}; parsing resumes cleanly at the next event. It is
 * lenient where it costs nothing: at {@link #finish()} an event that lacks its final blank line is
 * still dispatched, since usage often sits in the very last event of a stream.
 *
 * <p>Not thread-safe: one reader per stream, fed from one thread at a time. Exceptions thrown by
 * the listener propagate to the caller of {@link #feed}.
 */
public final class SseEventReader {

    /** The name of an event that carried no {@code event:} field. */
    public static final String DEFAULT_NAME = "message";

    /** Default cap on one event: large enough for a Responses API {@code response.completed} that repeats the whole output. */
    public static final int DEFAULT_MAX_EVENT_BYTES = 4 << 20;

    /** Buffers that grew past this are released after each event, so one large event does not pin memory for the whole stream. */
    private static final int RETAINED_CAPACITY = 16 << 10;

    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "event".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NEWLINE = {'\n'};

    /**
     * Receives each complete event as the reader holds it: its data is valid only during the call
     * (the reader reuses its buffer), which spares a stream of hundreds of events a copy and a
     * decoded String each.
     */
    @FunctionalInterface
    public interface Listener {
        /**
         * @param name the {@code event:} field, or {@link #DEFAULT_NAME}
         * @param data the event's data, UTF-8, multi-line data joined with {@code \n}, in {@code [offset, offset+length)}
         */
        void onEvent(String name, byte[] data, int offset, int length);
    }

    private final int maxEventBytes;
    private final Listener listener;

    private final Bytes line = new Bytes();
    private final Bytes data = new Bytes();
    private boolean lineTooLong;
    private boolean afterCr;
    private boolean firstLine = true;
    private String eventName;
    private boolean hasData;
    private boolean eventDamaged;
    private long droppedEvents;

    /** Hands each event to {@code listener} as bytes, without a copy (see {@link Listener}). */
    public SseEventReader(Listener listener) {
        this(DEFAULT_MAX_EVENT_BYTES, listener);
    }

    /**
     * @param maxEventBytes the most bytes one line or one event's data may take; beyond it the event is dropped
     * @param listener receives each complete event, in order, as bytes valid during the call
     */
    public SseEventReader(int maxEventBytes, Listener listener) {
        if (maxEventBytes <= 0 || listener == null) {
            throw new IllegalArgumentException("maxEventBytes must be positive and listener non-null");
        }
        this.maxEventBytes = maxEventBytes;
        this.listener = listener;
    }

    /** Parses the next chunk of the stream; events completed by it reach the listener before this returns. */
    public void feed(byte[] chunk, int offset, int length) {
        if (chunk == null || offset < 0 || length <= 0 || offset > chunk.length - length) {
            return;
        }
        int i = offset;
        int end = offset + length;
        if (afterCr) {
            afterCr = false;
            if (chunk[i] == '\n') {
                i++;
            }
        }
        while (i < end) {
            int lineEnd = i;
            while (lineEnd < end && chunk[lineEnd] != '\n' && chunk[lineEnd] != '\r') {
                lineEnd++;
            }
            appendToLine(chunk, i, lineEnd - i);
            if (lineEnd == end) {
                return; // the line continues in the next chunk
            }
            endLine();
            i = lineEnd + 1;
            if (chunk[lineEnd] == '\r') {
                if (i == end) {
                    afterCr = true; // a "\n" opening the next chunk belongs to this line end
                } else if (chunk[i] == '\n') {
                    i++;
                }
            }
        }
    }

    /** Convenience for {@code feed(chunk, 0, chunk.length)}. */
    public void feed(byte[] chunk) {
        if (chunk != null) {
            feed(chunk, 0, chunk.length);
        }
    }

    /** The stream ended, whole or broken: dispatches a last event that lacked its blank line, then resets. */
    public void finish() {
        if (line.size > 0 || lineTooLong) {
            endLine();
        }
        dispatch();
        afterCr = false;
    }

    /** Events dropped because a line or their data exceeded the cap. */
    public long droppedEvents() {
        return droppedEvents;
    }

    private void appendToLine(byte[] chunk, int offset, int length) {
        if (length == 0 || lineTooLong) {
            return;
        }
        if (line.size + length > maxEventBytes) {
            lineTooLong = true;
            line.clear();
            return;
        }
        line.append(chunk, offset, length);
    }

    private void endLine() {
        if (lineTooLong) {
            lineTooLong = false;
            eventDamaged = true; // whatever field it was, the event is incomplete now
            return;
        }
        int start = 0;
        if (firstLine) {
            firstLine = false;
            if (line.size >= 3
                    && line.buf[0] == (byte) 0xEF
                    && line.buf[1] == (byte) 0xBB
                    && line.buf[2] == (byte) 0xBF) {
                start = 3;
            }
        }
        int length = line.size - start;
        if (length == 0) {
            dispatch();
        } else if (line.buf[start] != ':') {
            field(start, length);
        }
        line.clear();
    }

    private void field(int start, int length) {
        int colon = start;
        int end = start + length;
        while (colon < end && line.buf[colon] != ':') {
            colon++;
        }
        int valueStart = Math.min(colon + 1, end);
        if (valueStart < end && line.buf[valueStart] == ' ') {
            valueStart++;
        }
        if (nameIs(DATA, start, colon)) {
            if (hasData) {
                appendToData(NEWLINE, 0, 1);
            }
            hasData = true;
            appendToData(line.buf, valueStart, end - valueStart);
        } else if (nameIs(EVENT, start, colon)) {
            eventName = new String(line.buf, valueStart, end - valueStart, StandardCharsets.UTF_8);
        }
    }

    private void appendToData(byte[] bytes, int offset, int length) {
        if (eventDamaged) {
            return;
        }
        if (data.size + length > maxEventBytes) {
            eventDamaged = true;
            data.clear();
            return;
        }
        data.append(bytes, offset, length);
    }

    private boolean nameIs(byte[] name, int start, int end) {
        return end - start == name.length && Arrays.equals(line.buf, start, end, name, 0, name.length);
    }

    private void dispatch() {
        if (eventDamaged) {
            droppedEvents++;
        } else if (hasData) {
            listener.onEvent(
                    eventName == null || eventName.isEmpty() ? DEFAULT_NAME : eventName, data.buf, 0, data.size);
        }
        eventName = null;
        hasData = false;
        eventDamaged = false;
        data.clear();
        data.trim();
        line.trim();
    }

    /** A growable byte buffer; the caller enforces the cap. */
    private static final class Bytes {
        byte[] buf = new byte[256];
        int size;

        void append(byte[] src, int offset, int length) {
            if (size + length > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(size + length, Math.min(buf.length * 2, Integer.MAX_VALUE - 8)));
            }
            System.arraycopy(src, offset, buf, size, length);
            size += length;
        }

        void clear() {
            size = 0;
        }

        void trim() {
            if (size == 0 && buf.length > RETAINED_CAPACITY) {
                buf = new byte[256];
            }
        }
    }
}
