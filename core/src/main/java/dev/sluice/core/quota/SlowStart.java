package dev.sluice.core.quota;

import dev.sluice.config.Dimension;

/**
 * How many calls a provider scope Sluice knows nothing about may have out at once: TCP's slow
 * start, counted in calls. The scope's first call goes alone; its answer's rate-limit headers
 * tell the limits, and the learned buckets take over from there (the scope ends its slow start).
 * Until then the window stays at one call for {@code coldStartWait}, then opens to
 * {@link #INITIAL_WINDOW} calls, and each accepted answer widens it by one, so it doubles every
 * round trip while the provider keeps accepting. A provider whose answers tell nothing (no
 * headers) stays in slow start until its first refusal sets a pace ({@link AdaptivePace}).
 *
 * <p>Why a window and not a timer: a scope whose first answer is late (a slow model, a process
 * busy starting thousands of threads) used to stop holding at {@code coldStartWait} and let every
 * waiting caller go at once; a herd of 10,000 then met 9,400 refusals from a provider allowing
 * 600 at once. A window lets at most a few calls out before anything is known, however many
 * wait. Internal; mutated under the governor's lock.
 */
final class SlowStart {

    /**
     * Calls out at once once the first answer is late: the initial window TCP uses (RFC 6928, ten
     * segments), small beside any provider's request burst, large enough that a service's few
     * callers at start do not notice a slow first answer.
     */
    static final int INITIAL_WINDOW = 10;

    /** When the window opens from the first call alone to {@link #INITIAL_WINDOW}. */
    private final long widensAtNanos;

    /** Accepted answers so far, each widening the window by one. */
    private int accepted;

    /** Calls admitted in slow start that still hold their slot. */
    private int inFlight;

    /**
     * What those calls charge the provider, by dimension ({@link Dimension#ordinal()}), and what
     * the calls of a scope this one replaced still had out: the buckets learned later did not count
     * them, yet the provider does (see {@link #outBeforeLimits}).
     */
    private final long[] out = new long[Dimension.values().length];

    private final long[] carriedOut = new long[Dimension.values().length];

    SlowStart(long widensAtNanos) {
        this.widensAtNanos = widensAtNanos;
    }

    /**
     * A slow start carried over to a scope that takes the place of this one (a key's
     * organization): what its answers widened stays, and what its calls still have out is owed.
     */
    SlowStart copy() {
        SlowStart s = new SlowStart(widensAtNanos);
        s.accepted = accepted;
        for (int d = 0; d < out.length; d++) {
            s.carriedOut[d] = out[d] + carriedOut[d];
        }
        return s;
    }

    /**
     * What the calls admitted before any limit was known, and still out, charge the provider in
     * {@code dimension}: a bucket learned now starts that much lower, as the provider counts them.
     */
    long outBeforeLimits(Dimension dimension) {
        return out[dimension.ordinal()] + carriedOut[dimension.ordinal()];
    }

    /** How many calls may be out at {@code nowNanos}. */
    int window(long nowNanos) {
        if (accepted == 0 && nowNanos - widensAtNanos < 0) {
            return 1;
        }
        return INITIAL_WINDOW + accepted;
    }

    /**
     * How long until a call may go: 0 when the window has room, the time until it widens while
     * the first call is alone out, else {@link Bucket#ON_RELEASE} (a call out must end first).
     */
    long nanosUntilRoom(long nowNanos) {
        if (inFlight < window(nowNanos)) {
            return 0;
        }
        if (accepted == 0 && nowNanos - widensAtNanos < 0 && inFlight < INITIAL_WINDOW) {
            return widensAtNanos - nowNanos;
        }
        return Bucket.ON_RELEASE;
    }

    /**
     * Whether a call whose wait ran out may go: the window as it is once widened. A caller's own
     * deadline is no reason to refuse while only a few calls are out, but a herd whose waits end
     * together must not go at once either.
     */
    boolean admitsAtDeadline() {
        return inFlight < INITIAL_WINDOW + accepted;
    }

    /** A call admitted, charging the provider {@code charges} by dimension. */
    void admitted(long[] charges) {
        inFlight++;
        for (int d = 0; d < out.length && d < charges.length; d++) {
            out[d] += charges[d];
        }
    }

    void released(long[] charges) {
        if (inFlight > 0) {
            inFlight--;
        }
        for (int d = 0; d < out.length && d < charges.length; d++) {
            out[d] = Math.max(0, out[d] - charges[d]);
        }
    }

    void accepted() {
        accepted++;
    }

    int inFlight() {
        return inFlight;
    }
}
