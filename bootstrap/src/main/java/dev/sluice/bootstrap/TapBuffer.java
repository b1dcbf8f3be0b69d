package dev.sluice.bootstrap;

/**
 * The one array a body tap copies each chunk into before lending it to its {@link BodyObserver},
 * which only reads it during the call: it grows to the largest chunk and is reused for the next,
 * so a body of many chunks costs one array, not one per chunk. Not thread-safe: one per body,
 * whose chunks come one at a time.
 */
public final class TapBuffer {

    private byte[] bytes = new byte[0];

    /** The array, with room for at least {@code length} bytes; what it held before is not kept. */
    public byte[] room(int length) {
        if (bytes.length < length) {
            bytes = new byte[Math.max(length, bytes.length * 2)];
        }
        return bytes;
    }
}
