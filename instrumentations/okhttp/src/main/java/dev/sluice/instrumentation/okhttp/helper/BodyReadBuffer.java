package dev.sluice.instrumentation.okhttp.helper;

import java.util.concurrent.atomic.AtomicReference;

/**
 * One array kept for reading request bodies into, when Sluice's attempts send the application's
 * own request and so need no copy of its bytes: the governance only reads them, once, before the
 * first attempt. Lent to one call at a time and given back once read; a call that finds it lent
 * reads into an array of its own, as every call did before. A new array of 8 KiB or more a call was
 * half of what Sluice allocated on an openai-java call with an 8 KiB prompt.
 *
 * <p>One per copy of OkHttp's helpers (per class loader), at most {@link #MOST_KEPT} bytes.
 */
final class BodyReadBuffer {

    /** The largest array kept; a body above it is read into an array of its own size, not kept. */
    static final int MOST_KEPT = 64 * 1024;

    /** The array not lent out, or null while it is (or before the first body). */
    private static final AtomicReference<byte[]> SPARE = new AtomicReference<>();

    private BodyReadBuffer() {}

    /** An array of at least {@code length} bytes, for the caller alone until {@link #giveBack}. */
    static byte[] borrow(int length) {
        if (length > MOST_KEPT) {
            return new byte[length];
        }
        byte[] spare = SPARE.getAndSet(null);
        if (spare == null) {
            return new byte[length]; // lent to another call (or none yet): this call's own
        }
        if (spare.length >= length) {
            return spare;
        }
        // too small for this body: a larger one, room to spare so a prompt that grows still fits
        return new byte[Math.min(MOST_KEPT, Integer.highestOneBit(length) << 1)];
    }

    /** Gives an array back, for the next body; the caller must not touch it after. */
    static void giveBack(byte[] array) {
        if (array != null && array.length <= MOST_KEPT) {
            SPARE.compareAndSet(null, array); // one kept: another call's may be back first
        }
    }
}
