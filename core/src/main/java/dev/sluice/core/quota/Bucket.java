package dev.sluice.core.quota;

/**
 * One counter of one {@link Limit} for one scope value (one tenant, one API key, ...). Internal:
 * every method is called with the governor's lock held, so buckets need no synchronisation of
 * their own; readers outside the lock (JMX) only get approximate figures.
 *
 * <p>Time is passed in (monotonic nanoseconds and wall-clock milliseconds read once per
 * operation) so that fifteen buckets cost one clock read, and tests drive time.
 */
public abstract class Bucket {

    /** {@link #nanosUntilRoom} for a demand larger than the whole capacity: waiting never helps. */
    public static final long NEVER = Long.MAX_VALUE;

    /**
     * {@link #nanosUntilRoom} when room only comes back when something is released (concurrency),
     * not with time: no timer is needed, a release triggers dispatch.
     */
    public static final long ON_RELEASE = Long.MAX_VALUE - 1;

    private final Limit limit;
    private final String scopeValue;

    /** Amount currently reserved and not yet settled (for JMX and leak checks). */
    private long reserved;

    /** The waiter that has first claim on this bucket's returning room (see the scheduler). */
    private Object claimant;

    /** Set when the bucket left its limit's cache: a route holding it must resolve again. */
    private volatile boolean evicted;

    protected Bucket(Limit limit, String scopeValue) {
        this.limit = limit;
        this.scopeValue = scopeValue;
    }

    public final Limit limit() {
        return limit;
    }

    /** The value of the limit's scope level this bucket counts for; empty for organization-wide. */
    public final String scopeValue() {
        return scopeValue;
    }

    /** Human-readable scope, e.g. {@code openai-prod/tenant=search}. */
    public final String scopeName() {
        return limit.scopeName(scopeValue);
    }

    /** Room for a new reservation now. May be negative after debits beyond a reservation. */
    public abstract long room(long nowNanos, long nowMillis);

    /**
     * Takes {@code amount} (room already checked, or observe mode where it may go negative).
     *
     * @return the id of the window it was taken in (windowed buckets), so a refund can tell
     *     whether it still applies; 0 for buckets without windows
     */
    public abstract long take(long amount, long nowNanos, long nowMillis);

    /** Gives back part of an earlier {@link #take} made in window {@code windowId}. */
    public abstract void giveBack(long amount, long windowId, long nowNanos, long nowMillis);

    /** Takes more than was reserved: actual usage exceeded the estimate. Room may go negative. */
    public abstract void takeMore(long amount, long nowNanos, long nowMillis);

    /**
     * How long until {@code amount} fits, assuming nobody else takes any: 0 when it fits now,
     * {@link #NEVER} when it exceeds the capacity, {@link #ON_RELEASE} when only a release helps.
     */
    public abstract long nanosUntilRoom(long amount, long nowNanos, long nowMillis);

    /** The provider says only {@code remaining} is left: lower the room to it if it is higher. */
    public abstract void lowerRoomTo(long remaining, long nowNanos, long nowMillis);

    /** Applies a new capacity (live tuning or a learned limit that moved). */
    public abstract void capacityChanged(long nowNanos, long nowMillis);

    /**
     * How long until this bucket is indistinguishable from a new one (full, nothing reserved), so
     * evicting it when idle loses nothing; 0 when it is already.
     */
    public abstract long nanosUntilAtRest(long nowNanos, long nowMillis);

    public final long capacity() {
        return limit.capacity();
    }

    /** Currently reserved and unsettled amount. */
    public final long reserved() {
        return reserved;
    }

    final void addReserved(long delta) {
        reserved += delta;
    }

    /** Records a reservation against this bucket (bookkeeping for {@link #reserved()}). */
    public final long reserve(long amount, long nowNanos, long nowMillis) {
        reserved += amount;
        return take(amount, nowNanos, nowMillis);
    }

    /** Ends a reservation of {@code reservedAmount} whose actual use was {@code actual}. */
    public final void settle(long reservedAmount, long actual, long windowId, long nowNanos, long nowMillis) {
        reserved -= reservedAmount;
        if (actual < reservedAmount) {
            giveBack(reservedAmount - actual, windowId, nowNanos, nowMillis);
        } else if (actual > reservedAmount) {
            takeMore(actual - reservedAmount, nowNanos, nowMillis);
        }
    }

    public final Object claimant() {
        return claimant;
    }

    public final void claim(Object waiter) {
        this.claimant = waiter;
    }

    /** Drops the claim if {@code waiter} holds it. */
    public final void unclaim(Object waiter) {
        if (claimant == waiter) {
            claimant = null;
        }
    }

    public final boolean isEvicted() {
        return evicted;
    }

    final void markEvicted() {
        evicted = true;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + scopeName() + " " + limit.dimension() + " cap=" + capacity() + '}';
    }
}
