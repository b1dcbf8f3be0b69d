package dev.sluice.core.provider.json;

import java.util.Arrays;

/**
 * Collects a non-streaming response body up to a cap, so its JSON can be read once it is complete
 * (usage sits at the end of a chat completion). Past the cap it gives up: the buffer is released,
 * only the byte count goes on, and {@link #walk} reports nothing. A 40 MB embeddings answer then
 * costs Sluice nothing but a counter. Not thread-safe.
 */
public final class BoundedBody {

    /** The default cap: larger than any usage-bearing answer a chat or Responses call returns in practice. */
    public static final int DEFAULT_CAP = 4 << 20;

    private final int cap;
    private byte[] buf = new byte[1024];
    private int size;
    private long bytesSeen;
    private boolean overflowed;

    public BoundedBody() {
        this(DEFAULT_CAP);
    }

    public BoundedBody(int cap) {
        if (cap <= 0) {
            throw new IllegalArgumentException("cap must be positive");
        }
        this.cap = cap;
    }

    /** Appends a chunk of the body; ignores invalid ranges. */
    public void append(byte[] chunk, int offset, int length) {
        if (chunk == null || offset < 0 || length <= 0 || offset > chunk.length - length) {
            return;
        }
        bytesSeen += length;
        if (overflowed) {
            return;
        }
        if (size + length > cap) {
            overflowed = true;
            buf = null;
            size = 0;
            return;
        }
        if (size + length > buf.length) {
            buf = Arrays.copyOf(buf, Math.min(cap, Math.max(size + length, buf.length * 2)));
        }
        System.arraycopy(chunk, offset, buf, size, length);
        size += length;
    }

    /** Whether the body outgrew the cap and was dropped. */
    public boolean overflowed() {
        return overflowed;
    }

    /** Every byte appended, kept or not. */
    public long bytesSeen() {
        return bytesSeen;
    }

    /** Walks the kept body; false when it overflowed, is empty or is not one complete JSON document. */
    public boolean walk(JsonVisitor visitor) {
        return !overflowed && size > 0 && JsonWalker.walk(buf, 0, size, visitor);
    }
}
