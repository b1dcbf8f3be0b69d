package dev.sluice.core.provider.eventstream;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Reads the AWS event-stream framing ({@code application/vnd.amazon.eventstream}) incrementally,
 * whatever the chunking, and hands each whole message to a {@link Listener}.
 *
 * <p>A message is a 12-byte prelude (total length, headers length, both big-endian unsigned 32-bit,
 * then the CRC32 of those 8 bytes), the headers, the payload, and the CRC32 of everything before
 * it. A header is a 1-byte name length, the name, a 1-byte value type and the value: {@code 0}/{@code 1}
 * true/false, {@code 2} byte, {@code 3} short, {@code 4} int, {@code 5} long, {@code 6} bytes and
 * {@code 7} string (each after a 2-byte length), {@code 8} timestamp (8 bytes), {@code 9} UUID (16
 * bytes). Only string values are kept ({@code :message-type}, {@code :event-type},
 * {@code :exception-type}...): they are all Bedrock names its messages by.
 *
 * <p>Memory is bounded: at most one message of at most {@code maxMessageBytes} is held, in one
 * array reused from message to message. A longer message is passed over unread (its bytes are
 * counted, not kept). A message whose CRC does not match is dropped; a prelude whose CRC does not
 * match, or lengths no message can have, mean the framing is lost: the decoder stops and says so
 * ({@link #lost()}), since no later byte can be trusted to start a message. Never throws on input.
 * Not thread-safe: one stream, fed from one thread at a time.
 */
public final class EventStreamDecoder {

    /** Receives each whole message whose CRCs matched. */
    public interface Listener {
        /**
         * One message: its string headers, its payload in {@code buffer[offset, offset+length)},
         * both valid only during the call (the array is reused for the next message).
         */
        void onMessage(EventStreamHeaders headers, byte[] buffer, int offset, int length);
    }

    /** The prelude: total length, headers length, prelude CRC. */
    static final int PRELUDE_BYTES = 12;
    /** The prelude and the message CRC: the least a message can be. */
    static final int MIN_MESSAGE_BYTES = PRELUDE_BYTES + 4;
    /** The most the format allows a message to be (16 MiB). */
    static final long MAX_MESSAGE_BYTES = 16L << 20;

    private static final int STRING = 7;

    private final Listener listener;
    private final int maxMessageBytes;
    private final CRC32 crc = new CRC32();
    private final EventStreamHeaders headers = new EventStreamHeaders();

    private final byte[] prelude = new byte[PRELUDE_BYTES];
    private int preludeFilled;
    /** The message being filled (prelude included), or null while reading a prelude or skipping. */
    private byte[] message = new byte[0];

    private int messageLength;
    private int messageFilled;
    /** Bytes of an oversized message still to pass over. */
    private long skipping;

    private boolean lost;
    private long messages;
    private long dropped;

    /**
     * @param maxMessageBytes the longest message kept and read; longer ones are passed over
     */
    public EventStreamDecoder(Listener listener, int maxMessageBytes) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is required");
        }
        if (maxMessageBytes < MIN_MESSAGE_BYTES) {
            throw new IllegalArgumentException("maxMessageBytes must be at least " + MIN_MESSAGE_BYTES);
        }
        this.listener = listener;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** The next bytes of the stream, in order; invalid ranges are ignored. */
    public void feed(byte[] chunk, int offset, int length) {
        if (lost || chunk == null || offset < 0 || length <= 0 || offset > chunk.length - length) {
            return;
        }
        int at = offset;
        int end = offset + length;
        while (at < end && !lost) {
            if (skipping > 0) {
                int n = (int) Math.min(skipping, end - at);
                skipping -= n;
                at += n;
            } else if (preludeFilled < PRELUDE_BYTES) {
                int n = Math.min(PRELUDE_BYTES - preludeFilled, end - at);
                System.arraycopy(chunk, at, prelude, preludeFilled, n);
                preludeFilled += n;
                at += n;
                if (preludeFilled == PRELUDE_BYTES) {
                    startMessage();
                }
            } else {
                int n = Math.min(messageLength - messageFilled, end - at);
                System.arraycopy(chunk, at, message, messageFilled, n);
                messageFilled += n;
                at += n;
                if (messageFilled == messageLength) {
                    endMessage();
                }
            }
        }
    }

    /** Whether the framing was lost (a prelude CRC that did not match, impossible lengths): nothing more is read. */
    public boolean lost() {
        return lost;
    }

    /** Whether the stream ended between messages (false when it ended inside one, or was lost). */
    public boolean atBoundary() {
        return !lost && skipping == 0 && preludeFilled == 0;
    }

    /** Messages handed to the listener. */
    public long messages() {
        return messages;
    }

    /** Messages passed over: longer than the cap, or with a message CRC that did not match. */
    public long dropped() {
        return dropped;
    }

    private void startMessage() {
        long total = u32(prelude, 0);
        long headersLength = u32(prelude, 4);
        crc.reset();
        crc.update(prelude, 0, 8);
        if (crc.getValue() != u32(prelude, 8)
                || total < MIN_MESSAGE_BYTES
                || total > MAX_MESSAGE_BYTES
                || headersLength > total - MIN_MESSAGE_BYTES) {
            lost = true;
            return;
        }
        if (total > maxMessageBytes) {
            dropped++;
            skipping = total - PRELUDE_BYTES;
            preludeFilled = 0;
            return;
        }
        messageLength = (int) total;
        if (message.length < messageLength) {
            message = new byte[Math.max(messageLength, Math.min(maxMessageBytes, message.length * 2))];
        }
        System.arraycopy(prelude, 0, message, 0, PRELUDE_BYTES);
        messageFilled = PRELUDE_BYTES;
    }

    private void endMessage() {
        preludeFilled = 0;
        int total = messageLength;
        crc.reset();
        crc.update(message, 0, total - 4);
        if (crc.getValue() != u32(message, total - 4)) {
            dropped++;
            return;
        }
        int headersLength = (int) u32(message, 4);
        int headersEnd = PRELUDE_BYTES + headersLength;
        if (!readHeaders(message, PRELUDE_BYTES, headersEnd)) {
            dropped++;
            return;
        }
        messages++;
        listener.onMessage(headers, message, headersEnd, total - 4 - headersEnd);
    }

    /** Parses the headers in {@code [at, end)}; false when they do not fill it exactly. */
    private boolean readHeaders(byte[] b, int at, int end) {
        headers.clear();
        while (at < end) {
            int nameLength = b[at++] & 0xFF;
            if (nameLength == 0 || at + nameLength + 1 > end) {
                return false;
            }
            int nameAt = at;
            at += nameLength;
            int type = b[at++] & 0xFF;
            int valueLength;
            switch (type) {
                case 0:
                case 1:
                    valueLength = 0;
                    break;
                case 2:
                    valueLength = 1;
                    break;
                case 3:
                    valueLength = 2;
                    break;
                case 4:
                    valueLength = 4;
                    break;
                case 5:
                case 8:
                    valueLength = 8;
                    break;
                case 9:
                    valueLength = 16;
                    break;
                case 6:
                case STRING:
                    if (at + 2 > end) {
                        return false;
                    }
                    valueLength = ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
                    at += 2;
                    break;
                default:
                    return false;
            }
            if (at + valueLength > end) {
                return false;
            }
            if (type == STRING) {
                headers.add(
                        new String(b, nameAt, nameLength, StandardCharsets.UTF_8),
                        new String(b, at, valueLength, StandardCharsets.UTF_8));
            }
            at += valueLength;
        }
        return true;
    }

    private static long u32(byte[] b, int at) {
        return ((long) (b[at] & 0xFF) << 24)
                | ((b[at + 1] & 0xFF) << 16)
                | ((b[at + 2] & 0xFF) << 8)
                | (b[at + 3] & 0xFF);
    }
}
