package dev.sluice.core.quota;

/**
 * One counter of one {@link Limit} for one scope value (one tenant, one API key, ...). Internal:
 * every method is called with the governor's lock held, so buckets need no synchronisation of
 * their own; readers outside the lock (JMX) only get approximate figures.
 *
 * <p>Time is passed in (monotonic nanoseconds and wall-clock milliseconds read once per
 * operation) so that fifteen buckets cost one clock read, and tests drive time.
 *
 * <p>A bucket is the arithmetic of its room; what only some buckets have lives in collaborators:
 * guaranteed tenants' reserves ({@link TenantReserves}, in a bucket shared between tenants), the
 * samples of what was admitted and a provider's figures while calls are in flight ({@link
 * AdmittedSamples}, {@link BusySpell}, in a learned bucket), room lent to the lock-free lane
 * ({@link #laneLender}, a local token bucket's), and what a fleet's store says ({@link
 * #fleetRoom}, a shared bucket's).
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
    /**
     * Everything admissions ever reserved here: a running count, so an answer's figures can be aged
     * by what was admitted after the call they describe. Lane admissions count when the room they
     * use is lent to the lane (and what is taken back unused is taken off), not when they are
     * registered: that happens in batches long after they were sent, and counting them then would
     * read calls sent before an answered call as sent after it.
     */
    private long admittedTotal;

    /** The waiter that has first claim on this bucket's returning room (see the scheduler). */
    private Object claimant;

    /** Set when the bucket left its limit's cache: a route holding it must resolve again. */
    private volatile boolean evicted;

    /**
     * Unused guaranteed capacity held for each guaranteed tenant; null for buckets that are not
     * shared between tenants or when no tenant has a guarantee.
     */
    final TenantReserves reserves;

    /** A learned bucket's samples of {@link #admittedTotal}, made by its first reservation; null until then. */
    private AdmittedSamples samples;

    /** The provider's figures while calls are in flight here; null but in a learned bucket. */
    private final BusySpell spell;

    protected Bucket(Limit limit, String scopeValue) {
        this(limit, scopeValue, true);
    }

    /**
     * @param holdReserves whether this bucket keeps reserves for guaranteed tenants; a bucket whose
     *     room lives in a shared store does not (guarantees are a per-JVM scheduling matter)
     */
    protected Bucket(Limit limit, String scopeValue, boolean holdReserves) {
        this.limit = limit;
        this.scopeValue = scopeValue;
        this.reserves = holdReserves ? TenantReserves.of(limit, limit.guaranteesForBuckets()) : null;
        this.spell = learned() ? new BusySpell() : null;
    }

    /**
     * Whether the limit was learned from a provider's answers (its spec never changes): only then
     * are figures read against it.
     */
    final boolean learned() {
        return limit.spec().source() == LimitSpec.Source.LEARNED;
    }

    /** Whether this bucket holds reserves for guaranteed tenants (it is shared between tenants). */
    public final boolean holdsReserves() {
        return reserves != null;
    }

    /**
     * Room for a call of guaranteed tenant {@code tenant} (-1 for any other): the room not held in
     * other tenants' reserves.
     */
    public final long roomFor(int tenant, long nowNanos, long nowMillis) {
        if (reserves == null) {
            return room(nowNanos, nowMillis);
        }
        double raw = exactRoom(nowNanos, nowMillis);
        return (long) Math.floor(raw - reserves.heldByOthers(tenant) + 1e-9);
    }

    /**
     * As {@link #roomFor}, exact (not rounded down): the room a call of {@code tenant} (a guaranteed
     * tenant's index, or -1) may use beside the other tenants' reserves. With -1, the room no
     * reserve holds: what tenants without a guarantee share.
     */
    final double exactRoomFor(int tenant, long nowNanos, long nowMillis) {
        double raw = exactRoom(nowNanos, nowMillis);
        return reserves == null ? raw : raw - reserves.heldByOthers(tenant);
    }

    /**
     * The most room a call of {@code tenant} (a guaranteed tenant's index, or -1) can find here: what
     * the bucket refills to ({@link Limit#refillCeiling}), less the other tenants' reserves at
     * their caps.
     */
    final double ceilingFor(int tenant) {
        double ceiling = limit.refillCeiling();
        return reserves == null ? ceiling : ceiling - reserves.othersAtCap(tenant);
    }

    /**
     * The room a call of this tenant that takes {@code amount} must find first: the amount, or for
     * a learned limit at most what the bucket can hold beside the other tenants' reserves (see
     * {@link Limit#roomNeededFor}).
     */
    public final long roomNeeded(int tenant, long amount) {
        long need = limit.roomNeededFor(amount);
        if (need == amount || reserves == null) {
            return need;
        }
        return Math.max(1, Math.min(need, (long) Math.floor(limit.burst() - reserves.othersAtCap(tenant) + 1e-9)));
    }

    /**
     * How long until {@code amount} fits for a call of this tenant, counting what the other
     * tenants' reserves will hold by then. {@link #NEVER} when it cannot fit even with every
     * other reserve full: guarantees lower the largest call the others can make.
     */
    public final long nanosUntilRoomFor(int tenant, long amount, long nowNanos, long nowMillis) {
        if (reserves == null) {
            return nanosUntilRoom(amount, nowNanos, nowMillis);
        }
        if (roomFor(tenant, nowNanos, nowMillis) >= amount) {
            return 0;
        }
        if (amount > limit.burst() - reserves.othersAtCap(tenant) + 1e-9) {
            return NEVER;
        }
        return nanosUntilRoomBesideReserves(tenant, amount, nowNanos, nowMillis);
    }

    /**
     * How long until {@code amount} fits beside the other tenants' reserves, knowing it fits once
     * they are all full. Buckets whose room comes back all at once (windows) or on release
     * (concurrency) wait for that; a token bucket computes the time from the rates.
     */
    long nanosUntilRoomBesideReserves(int tenant, long amount, long nowNanos, long nowMillis) {
        long full = nanosUntilRoom(limit.burst(), nowNanos, nowMillis);
        return full == 0 ? ON_RELEASE : full;
    }

    /**
     * Takes what a call of this tenant can from its reserve (before {@link #reserve}); returns how
     * much came from it, so a refund can give it back.
     */
    public final long takeReserved(int tenant, long amount, long nowNanos, long nowMillis) {
        if (reserves == null || tenant < 0) {
            return 0;
        }
        room(nowNanos, nowMillis); // bring the reserves up to date first
        return reserves.take(tenant, amount);
    }

    /** Refills every reserve by its share of {@code added} room (see {@link TenantReserves#refill}). */
    final void refillReserves(double added) {
        if (reserves != null) {
            reserves.refill(added);
        }
    }

    /** Fills every reserve (a new window). */
    final void fillReserves() {
        if (reserves != null) {
            reserves.fill();
        }
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

    /** Whether this bucket counts in windows aligned on wall-clock time (needs wall-clock readings). */
    public boolean isWindowed() {
        return false;
    }

    /**
     * The share of this bucket's refill that consumers Sluice cannot see take (see {@link
     * ExternalShare}): the bucket refills only the rest. Only token buckets refill; others ignore it.
     */
    void setExternalShare(double share, long nowNanos, long nowMillis) {}

    /**
     * Room as the limit's owner would count it, for status views: a provider mirror's room plus the
     * transit allowance it keeps back (see {@link TokenBucket}), so it reads like the provider's
     * own "remaining".
     */
    public long roomAsCounted(long nowNanos, long nowMillis) {
        return room(nowNanos, nowMillis);
    }

    /**
     * What this bucket knows of a store a fleet of JVMs shares, when its room lives there: it admits
     * from what this JVM leased, and a waiting call asks the store for more (see {@code
     * dev.sluice.core.store}); null for a bucket whose room is this JVM's alone.
     */
    public FleetRoom fleetRoom() {
        return null;
    }

    /** Whether this bucket's room lives in a store shared by a fleet of JVMs ({@link #fleetRoom}). */
    public final boolean isShared() {
        return fleetRoom() != null;
    }

    /**
     * Whether a refund or release must be handed the value {@link #take} returned: windowed
     * buckets, shared buckets (which tell what was taken before a fallback to local limits) and
     * token buckets (which tell what the refill made up since).
     */
    public boolean tracksTakes() {
        return isWindowed();
    }

    /**
     * How fast room comes back with time, per nanosecond, for sharing it fairly between tenants
     * ({@link TenantShares}); 0 for a bucket whose room does not come back with time alone.
     */
    double refillPerNano() {
        return 0;
    }

    /** {@link #roomAsCounted} with its fraction, for comparing Sluice's view with a provider's figure. */
    double exactRoomAsCounted(long nowNanos, long nowMillis) {
        return roomAsCounted(nowNanos, nowMillis);
    }

    /**
     * What providers' figures took off this bucket's room in all, less what they gave back
     * ({@link #lowerRoomTo}, {@link #raiseRoomTo}): the corrections {@link ExternalShare} adds up
     * between its samples. 0 for a bucket that does not keep its level exactly.
     */
    double figureCorrections() {
        return 0;
    }

    /** Room with its fraction (token buckets refill continuously), for comparisons with reserves. */
    double exactRoom(long nowNanos, long nowMillis) {
        return room(nowNanos, nowMillis);
    }

    /**
     * Takes {@code amount} (room already checked, or observe mode where it may go negative).
     *
     * @return what a refund hands back ({@link #giveBack}) to tell how much of it still applies:
     *     the id of the window it was taken in (windowed buckets), the take's moment (token
     *     buckets); 0 for others
     */
    public abstract long take(long amount, long nowNanos, long nowMillis);

    /**
     * Gives back part of an earlier {@link #take}; {@code takenAt} is what it returned, or for a
     * lane admission the moment of the loan it took from (see {@link LaneCredit#lentMoment}).
     */
    public abstract void giveBack(long amount, long takenAt, long nowNanos, long nowMillis);

    /** Takes more than was reserved: actual usage exceeded the estimate. Room may go negative. */
    public abstract void takeMore(long amount, long nowNanos, long nowMillis);

    /**
     * How long until {@code amount} fits, assuming nobody else takes any: 0 when it fits now,
     * {@link #NEVER} when it exceeds the capacity, {@link #ON_RELEASE} when only a release helps.
     */
    public abstract long nanosUntilRoom(long amount, long nowNanos, long nowMillis);

    /** The provider says only {@code remaining} is left: lower the room to it if it is higher. */
    public abstract void lowerRoomTo(long remaining, long nowNanos, long nowMillis);

    /**
     * As {@link #lowerRoomTo(long, long, long)}, for an estimate with a fraction: a bucket that
     * keeps its level exactly (a token bucket) keeps it, the others round down.
     */
    void lowerRoomTo(double remaining, long nowNanos, long nowMillis) {
        lowerRoomTo((long) Math.floor(remaining), nowNanos, nowMillis);
    }

    /**
     * A provider's figures say at least {@code remaining} is left now: raise the room to it if it
     * is lower. A local token bucket carries a figure's debt over time and overrides this; a
     * windowed one starts each window afresh. A shared-store bucket does nothing either, its local
     * fallback share included (a gap: that share is lowered by figures, never raised).
     */
    void raiseRoomTo(long remaining, long nowNanos, long nowMillis) {
        // nothing to mend here
    }

    /**
     * Notes a figure the provider gave for this learned bucket while Sluice has calls in flight
     * here (see {@link ProviderScope}'s {@code followFigure}): {@code remaining}, counted at {@code
     * countedNanos} when {@code countedMark} had been admitted here in all, in the answer to a
     * call that reserved {@code answeredAmount} here. Lock held.
     */
    final void figureWhileBusy(long remaining, long countedMark, long countedNanos, long answeredAmount) {
        spell.figure(remaining, countedMark, countedNanos, answeredAmount, refillPerNano());
    }

    /**
     * Sluice's last call in flight here was answered or ended: the provider has counted every call
     * it was sent, and the next figures start a new busy spell. When every call admitted in the
     * spell answered with a figure, the room is raised to the least of them: the call the provider
     * counted last gave a figure no higher, and a connection storm's calls reach it in any order,
     * so a figure taken off the calls admitted after its own may be counted twice. When some gave
     * none (an answer without headers, a call the lane admitted, a failure), the figures say
     * nothing of those: the least figure is then taken as it stands now, the refill since added
     * and what was admitted after it taken off (one figure at the start of a spell of a hundred
     * unanswered calls raised the room to it, well past what the provider had). Lock held.
     */
    final void endBusySpell(long nowNanos, long nowMillis) {
        double raiseTo = spell.end(admittedTotal, refillPerNano(), nowNanos);
        if (!Double.isNaN(raiseTo)) {
            raiseRoomTo((long) Math.floor(Math.min(raiseTo, limit.capacity())), nowNanos, nowMillis);
        }
    }

    /** Applies a new capacity (live tuning or a learned limit that moved). */
    public abstract void capacityChanged(long nowNanos, long nowMillis);

    public final long capacity() {
        return limit.capacity();
    }

    /** Currently reserved and unsettled amount, lane admissions not yet registered included. */
    public final long reserved() {
        return reserved + takenThroughLaneUnregistered();
    }

    final void addReserved(long delta) {
        reserved += delta;
    }

    /**
     * What admissions have reserved here since the bucket was made (see {@link #admittedTotal}):
     * the difference of two readings is what was admitted between them. Lock held.
     */
    public final long admittedTotal() {
        return admittedTotal;
    }

    /**
     * What {@link #admittedTotal} was at {@code nanos}, from samples taken just before a
     * reservation ({@link AdmittedSamples#totalAt}); the total now when the bucket keeps none (it is
     * not learned) or none is that recent. Lock held.
     */
    final long admittedTotalAt(long nanos) {
        AdmittedSamples s = samples;
        return s == null ? admittedTotal : s.totalAt(nanos, admittedTotal);
    }

    /** Records a reservation against this bucket (bookkeeping for {@link #reserved()}). */
    public final long reserve(long amount, long nowNanos, long nowMillis) {
        reserved += amount;
        sampleAdmitted(nowNanos);
        admittedTotal += amount;
        return take(amount, nowNanos, nowMillis);
    }

    /** Room lent to the lock-free lane (negative: taken back unused), counted as admitted. Lock held. */
    final void countAdmitted(long amount, long nowNanos) {
        if (amount > 0) {
            sampleAdmitted(nowNanos);
        }
        admittedTotal += amount;
    }

    /** Samples the admitted total before a reservation: a learned bucket's figures are aged by it ({@link AnswerAge}). */
    private void sampleAdmitted(long nowNanos) {
        if (spell == null) {
            return; // only a provider's figures are aged: other buckets keep no samples
        }
        if (samples == null) {
            samples = new AdmittedSamples();
        }
        samples.sample(admittedTotal, nowNanos);
    }

    /**
     * Ends a reservation of {@code reservedAmount} whose actual use was {@code actual}; {@code
     * takenAt} is what its {@link #take} returned. What came from a guaranteed tenant's reserve goes
     * back to it first.
     */
    public final void settle(
            long reservedAmount,
            long actual,
            long takenAt,
            int tenant,
            long fromReserve,
            long nowNanos,
            long nowMillis) {
        reserved -= reservedAmount;
        if (actual < reservedAmount) {
            long refund = reservedAmount - actual;
            giveBack(refund, takenAt, nowNanos, nowMillis);
            if ((!isWindowed() || takenAt == currentWindowId(nowMillis)) && reserves != null) {
                reserves.giveBack(tenant, Math.min(refund, fromReserve));
            }
        } else if (actual > reservedAmount) {
            takeMore(actual - reservedAmount, nowNanos, nowMillis);
        }
        if (reservedAmount > 0 && spell != null && reserved() <= 0) {
            if (spell.hasFigure()) {
                // the last call out ended after the answers were read (a stream, a body read later)
                endBusySpell(nowNanos, nowMillis);
            } else {
                spell.restart(admittedTotal);
            }
        }
    }

    /** Ends a reservation that held no guarantee. */
    public final void settle(long reservedAmount, long actual, long takenAt, long nowNanos, long nowMillis) {
        settle(reservedAmount, actual, takenAt, -1, 0, nowNanos, nowMillis);
    }

    // ------------------------------------------------------------------ the lock-free lane

    /**
     * This bucket as a lender of room to the governor's lock-free lane, or null when it does not
     * lend: only a local token bucket without reserves does (see {@link TokenBucket}); others are
     * only ever charged under the lock. Lock held.
     */
    public LaneLender laneLender() {
        return null;
    }

    /**
     * Room on the governor's locked fast path, for a call of tenant {@code tenant}. A bucket that
     * lends to the lane leaves the lent room where it is: if what remains is not enough, the
     * governor takes the slow path, where {@link #roomFor} takes everything back first.
     */
    public long roomOnFastPath(int tenant, long nowNanos, long nowMillis) {
        return roomFor(tenant, nowNanos, nowMillis);
    }

    /** What lane admissions took that the lock holder has not registered yet (racy outside the lock). */
    long takenThroughLaneUnregistered() {
        return 0;
    }

    // ------------------------------------------------------------------ windows, claims and eviction

    /** The id of the current window for windowed buckets; 0 for others. */
    long currentWindowId(long nowMillis) {
        return 0;
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
        onEvicted();
    }

    /** The bucket left its limit's cache (lock held). */
    void onEvicted() {}

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + scopeName() + " " + limit.dimension() + " cap=" + capacity() + '}';
    }
}
