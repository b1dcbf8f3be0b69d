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

    /** The least a body of unknown length starts with; it doubles as it grows. */
    private static final int FIRST_BYTES = 1024;

    private final int cap;
    /** The body's announced length when it fits the cap, else -1: the first chunk's array is made that long. */
    private final int expectedBytes;
    /** Made at the first chunk (see {@link #append}), or adopted ({@link #adopt}). */
    private byte[] buf;

    private int size;
    private long bytesSeen;
    private boolean overflowed;

    public BoundedBody() {
        this(DEFAULT_CAP);
    }

    public BoundedBody(int cap) {
        this(cap, -1);
    }

    /**
     * @param expectedBytes the body's length when the answer announced it ({@code Content-Length}),
     *     else negative: a body that fits the cap is then collected into one array of that size,
     *     not copied at each doubling (a 2.6 KB chat answer took 7 KB of copies). Only a hint: a
     *     body that runs longer (a compressed length, a wrong header) grows by doubling. A body of
     *     unknown length starts at its first chunk's size (at least 1 KB).
     */
    public BoundedBody(int cap, long expectedBytes) {
        if (cap <= 0) {
            throw new IllegalArgumentException("cap must be positive");
        }
        this.cap = cap;
        this.expectedBytes = expectedBytes > 0 && expectedBytes <= cap ? (int) expectedBytes : -1;
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
        if (buf == null) {
            // The announced length, else a chunked answer's first read, often all of it: one array
            // of its size, no copies.
            int first = expectedBytes > 0 ? expectedBytes : Math.max(length, FIRST_BYTES);
            buf = new byte[Math.min(cap, Math.max(first, length))];
        } else if (size + length > buf.length) {
            buf = Arrays.copyOf(buf, Math.min(cap, Math.max(size + length, buf.length * 2)));
        }
        System.arraycopy(chunk, offset, buf, size, length);
        size += length;
    }

    /**
     * The body's first bytes in an array no one writes into any more: kept as it is, not copied,
     * when nothing was appended yet and they fit the cap; appended otherwise. A body that runs on
     * grows from there by doubling.
     */
    public void adopt(byte[] bytes, int length) {
        if (buf != null || overflowed || bytes == null || length <= 0 || length > bytes.length || length > cap) {
            append(bytes, 0, length);
            return;
        }
        buf = bytes;
        size = length;
        bytesSeen += length;
    }

    /** Whether the body outgrew the cap and was dropped. */
    public boolean overflowed() {
        return overflowed;
    }

    /** Every byte appended, kept or not. */
    public long bytesSeen() {
        return bytesSeen;
    }

    /** The length of the array the body is kept in (0 before the first chunk and once it overflowed); for tests. */
    int heldCapacity() {
        return buf == null ? 0 : buf.length;
    }

    /**
     * Reads only the object value of the root member {@code member} when it is found at the body's
     * end ({@link TrailingMember}): its counts straight into {@code into} when {@code counts} can
     * ({@link PlainCounts}), else walked with {@code visitor}, its values named relative to it (e.g.
     * {@code prompt_tokens}). False when the body overflowed, the member was not found there, or
     * the walk failed.
     */
    public boolean readTrailingObject(TrailingMember member, PlainCounts counts, long[] into, JsonVisitor visitor) {
        if (overflowed || size == 0) {
            return false;
        }
        long found = member.findObject(buf, 0, size);
        if (found < 0) {
            return false;
        }
        int start = (int) (found >>> 32);
        int end = (int) found;
        return counts.read(buf, start, end, into) || JsonWalker.walk(buf, start, end - start, visitor);
    }

    /**
     * The string value of the root member {@code member} when it is among the body's first or last
     * members ({@link RootString}); null when the body overflowed or it is not found there.
     */
    public String rootString(RootString member) {
        return overflowed || size == 0 ? null : member.find(buf, 0, size);
    }

    /** Walks the kept body; false when it overflowed, is empty or is not one complete JSON document. */
    public boolean walk(JsonVisitor visitor) {
        return !overflowed && size > 0 && JsonWalker.walk(buf, 0, size, visitor);
    }
}
