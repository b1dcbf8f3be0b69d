package dev.sluice.core.quota;

import dev.sluice.config.Dimension;
import dev.sluice.core.state.SavedState;
import java.time.Duration;
import java.util.Arrays;

/**
 * The provider's own scope for one key and model: the limits learned from its rate-limit headers,
 * and its pause. A wait hint from the provider pauses the scope for every caller, not just the one
 * that was told; when the pause ends, one probe call goes first and the others follow only once it
 * was accepted. Internal; mutated under the governor's lock.
 */
public final class ProviderScope {

    private static final Bucket[] NONE = new Bucket[0];

    private final String key;
    private final String displayName;
    private volatile Bucket[] learned = NONE;
    /**
     * What the provider last announced for each learned bucket (same index): its limit and what
     * remained, -1 when not announced. For status views only; written under the governor's lock.
     */
    private volatile long[] reportedLimits = new long[0];

    private volatile long[] reportedRemaining = new long[0];
    /** What others take of each learned budget (same index); see {@link ExternalShare}. */
    private volatile ExternalShare[] externalShares = new ExternalShare[0];

    /** The pace 429s set where answers carry no rate-limit headers (null until the first such refusal). */
    private volatile AdaptivePace adaptivePace;
    /** How fast calls were answered lately, to size that pace. */
    private final RecentRate answers = new RecentRate();

    /** Fair shares of the learned budgets between the tenants using the scope now. */
    private final TenantShares tenantShares = new TenantShares();

    private long pausedUntilNanos;
    /**
     * How many calls may be out while Sluice knows nothing of this scope's limits (see {@link
     * SlowStart}); null once an answer told them, a refusal set a pace, or the scope started warm.
     */
    private SlowStart slowStart;

    private boolean probeNeeded;
    private boolean probeOutstanding;
    private long probeStartedNanos;
    /** Whether a pause or its probe is under way: the lock-free lane then stays out (written under the lock). */
    private volatile boolean gated;

    private volatile boolean evicted;

    private final Guarantees guarantees;
    private final BucketPlacement placement;

    public ProviderScope(String key, String displayName, Guarantees guarantees) {
        this(key, displayName, guarantees, BucketPlacement.LOCAL);
    }

    /** A scope whose learned buckets {@code placement} may put in a shared store, so a fleet paces under one budget. */
    public ProviderScope(String key, String displayName, Guarantees guarantees, BucketPlacement placement) {
        this.key = key;
        this.displayName = displayName;
        this.guarantees = guarantees;
        this.placement = placement;
    }

    public String key() {
        return key;
    }

    /** E.g. {@code openai/k_3f9a1c/gpt-4o-mini}. */
    public String displayName() {
        return displayName;
    }

    /** How the tenants using this scope now share its learned budgets. Lock held, except its lane check. */
    public TenantShares tenantShares() {
        return tenantShares;
    }

    /** Buckets learned from the provider's headers, charged like the provider charges. */
    public Bucket[] learnedBuckets() {
        return learned;
    }

    /**
     * Adopts a budget the provider announced. A new budget becomes a token bucket of that
     * capacity over that window; a known one follows the provider's limit (capped at
     * {@code ceiling}); {@code remaining}, when lower than Sluice's own view, wins.
     *
     * @param limit the announced capacity, or a negative value when unknown (Azure announces only
     *     what remains: the largest remaining seen stands for the capacity)
     * @param remaining what is left, or negative when unknown
     */
    public void learn(
            String budgetName,
            Dimension dimension,
            long limit,
            long remaining,
            long windowMillis,
            long ceiling,
            long nowNanos,
            long nowMillis) {
        learn(
                budgetName,
                dimension,
                limit,
                remaining,
                windowMillis,
                ceiling,
                0,
                AnswerAge.CURRENT,
                nowNanos,
                nowMillis);
    }

    /**
     * As {@link #learn(String, Dimension, long, long, long, long, long, long)}, for an answer of
     * that {@code age}: its {@code remaining} is read as of now (see {@link AnswerAge}); the
     * learned burst never exceeds {@code burstCeiling} (the burst of a configured limit mirroring
     * this budget; 0: none).
     */
    public void learn(
            String budgetName,
            Dimension dimension,
            long limit,
            long remaining,
            long windowMillis,
            long ceiling,
            long burstCeiling,
            AnswerAge age,
            long nowNanos,
            long nowMillis) {
        if (windowMillis <= 0 || (limit <= 0 && remaining < 0)) {
            return;
        }
        Bucket bucket = find(dimension, windowMillis);
        if (bucket == null && limit <= 0 && remaining == 0) {
            return; // "nothing left" of a budget of unknown size says nothing of its size
        }
        long capacity = limit > 0 ? limit : Math.max(1, remaining);
        capacity = Math.min(capacity, ceiling);
        // The most the provider has shown to be left at once, plus the call it just counted: a
        // provider enforcing a per-minute limit over sub-minute periods (OpenAI) never shows more
        // than its real burst, however large the limit it announces.
        // A burst seen is a pace, never a size limit: a call larger than it still fits a full
        // bucket (Limit#roomNeededFor), so "0 left" slows the scope and cannot lock it out.
        long burstSeen = remaining >= 0 ? Math.min(capacity, remaining + 1) : 0;
        if (burstCeiling > 0 && burstCeiling < capacity) {
            // nothing seen yet stands for the capacity, which is more than the ceiling too
            burstSeen = burstSeen == 0 ? burstCeiling : Math.min(burstSeen, burstCeiling);
        }
        if (bucket == null) {
            LimitSpec spec = LimitSpec.builder(displayName + ":" + budgetName, dimension, capacity)
                    .window(Duration.ofMillis(windowMillis))
                    .burst(burstSeen)
                    .mirrorsProvider(true)
                    .source(LimitSpec.Source.LEARNED)
                    .build();
            bucket = Limit.forScope(spec, displayName, nowNanos, nowMillis, guarantees, placement)
                    .buckets()
                    .iterator()
                    .next();
            Bucket[] grown = Arrays.copyOf(learned, learned.length + 1);
            grown[grown.length - 1] = bucket;
            reportedLimits = Arrays.copyOf(reportedLimits, grown.length);
            reportedRemaining = Arrays.copyOf(reportedRemaining, grown.length);
            externalShares = Arrays.copyOf(externalShares, grown.length);
            externalShares[grown.length - 1] = new ExternalShare();
            learned = grown;
            if (slowStart != null) {
                // the calls sent before any limit was known count at the provider: in a fleet's
                // shared bucket (where, sent with the figure, they only lower it below the figure)
                // they would otherwise be counted by nobody
                long out = slowStart.outBeforeLimits(dimension);
                if (out > 0) {
                    bucket.takeMore(out, nowNanos, nowMillis);
                }
            }
            endSlowStart(); // the learned buckets pace the scope from now on
        } else {
            Limit l = bucket.limit();
            if (limit > 0 ? capacity != l.capacity() : capacity > l.capacity()) {
                l.setCapacity(capacity, nowNanos, nowMillis);
            }
            if (burstSeen > l.burst() && l.burst() < l.capacity()) {
                l.setBurst(burstSeen >= l.capacity() ? 0 : burstSeen, nowNanos, nowMillis);
            } else if (burstCeiling > 0 && l.burst() > burstCeiling) {
                l.setBurst(burstCeiling, nowNanos, nowMillis); // a configured burst was lowered
            }
        }
        if (limit > 0) {
            bucket.limit().setCapacityAnnounced(true);
        }
        if (remaining >= 0) {
            followFigure(bucket, remaining, age, nowNanos, nowMillis);
        }
        record(bucket, limit, remaining);
    }

    /**
     * Brings a learned bucket's room to what the provider said {@code remaining} of it, counted
     * {@code age} ago: lowered to it as of now (what Sluice admitted since and has in flight taken
     * off, see {@link AnswerAge}), and, when this answer's call was the last of Sluice's in
     * flight, raised to the least figure the provider gave while they were out (or when the last
     * call out settles, if that comes after its answer: {@link Bucket#endBusySpell}). Taking calls in
     * flight off a figure guesses they were not in it; a connection storm's calls reach the
     * provider in any order, so that guess left a scope of 4,000 calls a minute hundreds in debt
     * at a provider saying 12 were left, and with nothing in flight no later figure could mend it:
     * it stalled for half a minute. Once every call is answered the provider has counted them all,
     * so what is left now is at least the least figure it gave meanwhile, less only what consumers
     * Sluice cannot see took since (which its estimate of them covers); the refill since only adds.
     */
    private void followFigure(Bucket bucket, long remaining, AnswerAge age, long nowNanos, long nowMillis) {
        ExternalShare others = externalShareOf(bucket);
        Limit l = bucket.limit();
        double share = others == null ? 0 : others.share();
        // first: it takes back the lane's unused loans, which were counted as admitted
        double view = bucket.exactRoomAsCounted(nowNanos, nowMillis);
        double remainingNow = age.remainingNow(bucket, remaining, share);
        if (others != null
                && others.observe(
                        view,
                        remainingNow,
                        bucket.figureCorrections(),
                        age.ambiguouslyTakenOff(bucket),
                        l.capacity(),
                        l.windowNanos(),
                        nowNanos)) {
            bucket.setExternalShare(others.share(), nowNanos, nowMillis);
        }
        bucket.figureWhileBusy(remaining, age.countedMark(bucket), age.countedAt(nowNanos), age.answeredAmount(bucket));
        bucket.lowerRoomTo(remainingNow, nowNanos, nowMillis);
        if (age.lastInFlight(bucket)) {
            bucket.endBusySpell(nowNanos, nowMillis);
        }
    }

    /**
     * The provider refused a call for capacity although Sluice's buckets had room for it: someone
     * Sluice cannot see took it. The budgets of the dimension the refusal named (every learned
     * budget when it named none) leave more to others at once, unless the refused call was sent
     * before an earlier refusal raised that estimate (see {@link ExternalShare#surprised}).
     *
     * @param limiter the dimension the provider said ran out, or null
     * @param pacedByRefusals the provider's answers never tell its limits: the refusal then cuts
     *     the scope's pace instead (see {@link AdaptivePace})
     * @param admittedNanos when the refused call was admitted
     */
    public void refusedDespiteRoom(
            Dimension limiter, boolean pacedByRefusals, long admittedNanos, long nowNanos, long nowMillis) {
        if (pacedByRefusals && knowsNoHeaders()) {
            paceByRefusals(nowNanos, nowMillis);
            return;
        }
        Bucket[] buckets = learned;
        for (int i = 0; i < buckets.length && i < externalShares.length; i++) {
            if (limiter != null && buckets[i].limit().dimension() != limiter) {
                continue;
            }
            if (externalShares[i].surprised(admittedNanos, nowNanos)) {
                buckets[i].setExternalShare(externalShares[i].share(), nowNanos, nowMillis);
            }
        }
    }

    /** Whether nothing was learned from this scope's headers: its answers carry none (or none yet). */
    private boolean knowsNoHeaders() {
        AdaptivePace pace = adaptivePace;
        for (Bucket b : learned) {
            if (pace == null || b != pace.bucket()) {
                return false;
            }
        }
        return true;
    }

    /**
     * A refusal where no headers tell the limits: 429s alone drive the pace (see {@link
     * AdaptivePace}), starting under the rate Sluice was sending at.
     */
    private void paceByRefusals(long nowNanos, long nowMillis) {
        double sent = answers.perMinute(nowNanos);
        AdaptivePace pace = adaptivePace;
        if (pace != null) {
            pace.refused(sent, nowNanos, nowMillis);
            return;
        }
        Bucket bucket = startPace(AdaptivePace.firstPace(sent), nowNanos, nowMillis);
        // the refused call took what was there: start empty, so the next call waits its turn
        bucket.lowerRoomTo(0, nowNanos, nowMillis);
    }

    /** Adds the bucket of a pace set by refusals, at {@code first} calls a minute. Lock held. */
    private Bucket startPace(long first, long nowNanos, long nowMillis) {
        long burst = AdaptivePace.burstOf(first);
        LimitSpec spec = LimitSpec.builder(displayName + ":" + AdaptivePace.BUDGET_NAME, Dimension.REQUESTS, first)
                .window(Duration.ofMillis(AdaptivePace.WINDOW_MILLIS))
                .burst(burst >= first ? 0 : burst)
                .source(LimitSpec.Source.LEARNED)
                .build();
        Bucket bucket = Limit.forScope(spec, displayName, nowNanos, nowMillis, guarantees, placement)
                .buckets()
                .iterator()
                .next();
        adaptivePace = AdaptivePace.over(bucket, nowNanos);
        Bucket[] grown = Arrays.copyOf(learned, learned.length + 1);
        grown[grown.length - 1] = bucket;
        reportedLimits = Arrays.copyOf(reportedLimits, grown.length);
        reportedLimits[grown.length - 1] = -1;
        reportedRemaining = Arrays.copyOf(reportedRemaining, grown.length);
        reportedRemaining[grown.length - 1] = -1;
        externalShares = Arrays.copyOf(externalShares, grown.length);
        externalShares[grown.length - 1] = new ExternalShare();
        learned = grown;
        endSlowStart(); // the pace takes over
        return bucket;
    }

    /**
     * The provider answered a call of this scope: counted for the pace 429s set; true when an
     * accepted answer is due to raise that pace ({@link #answerRaisesPace}, under the lock). Any thread.
     */
    public boolean answered(boolean accepted, long nowNanos) {
        answers.record(nowNanos);
        AdaptivePace pace = adaptivePace;
        return accepted && pace != null && pace.increaseDue(nowNanos);
    }

    /** An accepted answer raises the pace 429s set by what the time since the last rise earned. Lock held. */
    public void answerRaisesPace(long nowNanos, long nowMillis) {
        AdaptivePace pace = adaptivePace;
        if (pace != null) {
            pace.accepted(nowNanos, nowMillis);
        }
    }

    /** The pace 429s set, in calls a minute, or -1 when the scope has none (its answers carry headers). */
    public long paceFromRefusals() {
        AdaptivePace pace = adaptivePace;
        return pace == null ? -1 : pace.bucket().limit().capacity();
    }

    /** What a learned budget holds now, for a state file. Lock held. */
    public SavedState.Budget saved(Bucket learnedBucket, long nowNanos, long nowMillis) {
        Limit l = learnedBucket.limit();
        String id = l.id();
        String name = id.startsWith(displayName + ":") ? id.substring(displayName.length() + 1) : id;
        ExternalShare others = externalShareOf(learnedBucket);
        return new SavedState.Budget(
                name,
                l.dimension(),
                l.capacity(),
                l.capacityAnnounced(),
                l.burst(),
                l.windowNanos() / 1_000_000L,
                learnedBucket.roomAsCounted(nowNanos, nowMillis),
                others == null ? 0 : others.share());
    }

    /**
     * Brings back a budget a previous run learned, {@code elapsedMillis} ago: its capacity and
     * burst, its room refilled since at the rate it was refilling, and the share others took.
     * Lock held.
     */
    public void restore(SavedState.Budget b, long elapsedMillis, long nowNanos, long nowMillis) {
        if (b.capacity <= 0 || b.windowMillis <= 0) {
            return;
        }
        // refilled up to the burst it had, not the capacity: a restart hands out no more at once
        long full = b.burst > 0 && b.burst < b.capacity ? b.burst : b.capacity;
        long room = Math.min(full, refilledRoom(b.room, b.capacity, b.windowMillis, b.externalShare, elapsedMillis));
        if (AdaptivePace.BUDGET_NAME.equals(b.name)) {
            // a pace set by refusals comes back as one, so it goes on adapting
            if (adaptivePace == null && learned.length == 0) {
                startPace(b.capacity, nowNanos, nowMillis).lowerRoomTo(room, nowNanos, nowMillis);
            }
            return;
        }
        learn(
                b.name,
                b.dimension,
                b.announced ? b.capacity : -1,
                room,
                b.windowMillis,
                Long.MAX_VALUE,
                full,
                AnswerAge.CURRENT,
                nowNanos,
                nowMillis);
        Bucket bucket = find(b.dimension, b.windowMillis);
        if (bucket == null) {
            return;
        }
        if (!b.announced && bucket.limit().capacity() < b.capacity) {
            bucket.limit().setCapacity(b.capacity, nowNanos, nowMillis);
        }
        if (b.burst > bucket.limit().burst() && b.burst <= bucket.limit().capacity()) {
            bucket.limit().setBurst(b.burst >= bucket.limit().capacity() ? 0 : b.burst, nowNanos, nowMillis);
        }
        ExternalShare others = externalShareOf(bucket);
        if (others != null && b.externalShare > 0) {
            others.restore(b.externalShare);
            bucket.setExternalShare(others.share(), nowNanos, nowMillis);
        }
    }

    /**
     * The room a token bucket saved with {@code room} has {@code elapsedMillis} later, refilled at
     * its rate less the share others take, up to its capacity: what a state file restores.
     */
    public static long refilledRoom(
            long room, long capacity, long windowMillis, double externalShare, long elapsedMillis) {
        double refilled = (double) capacity * (1 - externalShare) * elapsedMillis / Math.max(1, windowMillis);
        return (long) Math.min(capacity, Math.max(0, room) + refilled);
    }

    /** The largest share of a learned budget others take, in [0, 0.9]: 0 when Sluice seems alone. */
    public double externalShare() {
        double most = 0;
        for (ExternalShare s : externalShares) {
            most = Math.max(most, s.share());
        }
        return most;
    }

    private ExternalShare externalShareOf(Bucket bucket) {
        Bucket[] buckets = learned;
        for (int i = 0; i < buckets.length && i < externalShares.length; i++) {
            if (buckets[i] == bucket) {
                return externalShares[i];
            }
        }
        return null;
    }

    private void record(Bucket bucket, long limit, long remaining) {
        Bucket[] buckets = learned;
        for (int i = 0; i < buckets.length; i++) {
            if (buckets[i] == bucket) {
                reportedLimits[i] = limit > 0 ? limit : -1;
                reportedRemaining[i] = remaining >= 0 ? remaining : -1;
                return;
            }
        }
    }

    /** The limit the provider last announced for a learned bucket, or -1 when it did not say. */
    public long reportedLimit(Bucket learnedBucket) {
        return reported(reportedLimits, learnedBucket);
    }

    /** What the provider last said remained in a learned bucket, or -1 when it did not say. */
    public long reportedRemaining(Bucket learnedBucket) {
        return reported(reportedRemaining, learnedBucket);
    }

    private long reported(long[] values, Bucket learnedBucket) {
        Bucket[] buckets = learned;
        for (int i = 0; i < buckets.length && i < values.length; i++) {
            if (buckets[i] == learnedBucket) {
                return values[i];
            }
        }
        return -1;
    }

    private Bucket find(Dimension dimension, long windowMillis) {
        for (Bucket b : learned) {
            if (b.limit().dimension() == dimension && b.limit().windowNanos() == windowMillis * 1_000_000L) {
                return b;
            }
        }
        return null;
    }

    /**
     * Sluice knows nothing of this scope's limits yet: its first call goes alone, and the others
     * wait for its answer (whose rate-limit headers tell the limits); from {@code widensAtNanos}
     * without an answer, a few more calls may go, never the whole herd (see {@link SlowStart}).
     */
    public void startCold(long widensAtNanos) {
        slowStart = new SlowStart(widensAtNanos);
        updateGate();
    }

    /**
     * A scope taking this one's place (an organization its key turned out to count against)
     * that has learned nothing yet keeps this one's slow start: what its answers widened stays.
     */
    public void carrySlowStartTo(ProviderScope successor) {
        if (slowStart != null && successor.learned.length == 0 && successor.slowStart == null) {
            successor.slowStart = slowStart.copy();
            successor.updateGate();
        }
    }

    /** Whether calls are held because Sluice knows nothing of this scope's limits yet. */
    public boolean inSlowStart() {
        return slowStart != null;
    }

    /** Calls out in the scope's slow start (0 once it ended), for what a refusal says. */
    public int slowStartInFlight() {
        SlowStart s = slowStart;
        return s == null ? 0 : s.inFlight();
    }

    /** Calls the slow start lets out now, or -1 once it ended, for status views. Lock held. */
    public int slowStartWindow(long nowNanos) {
        SlowStart s = slowStart;
        return s == null ? -1 : s.window(nowNanos);
    }

    /**
     * Whether a call whose wait ran out may go: the scope is in slow start and fewer calls are out
     * than its window once widened (see {@link SlowStart#admitsAtDeadline}).
     */
    public boolean slowStartAdmitsAtDeadline() {
        SlowStart s = slowStart;
        return s != null && s.admitsAtDeadline();
    }

    /** Whether an admission now is counted in the scope's slow start ({@link #slowStartAdmitted}). */
    public boolean countsSlowStart() {
        return slowStart != null;
    }

    /**
     * Counts an admission in the scope's slow start, charging the provider {@code charges} by
     * dimension ({@link Dimension#ordinal()}); its release ({@link #slowStartReleased}) and an
     * accepted answer ({@link #slowStartAccepted}) are told with the same. Lock held.
     */
    public void slowStartAdmitted(long[] charges) {
        SlowStart s = slowStart;
        if (s != null) {
            s.admitted(charges);
        }
    }

    /** A call counted in the slow start released its slot. Lock held. */
    public void slowStartReleased(long[] charges) {
        SlowStart s = slowStart;
        if (s != null) {
            s.released(charges);
        }
    }

    /** A call counted in the slow start was accepted: the window widens by one. Lock held. */
    public void slowStartAccepted() {
        SlowStart s = slowStart;
        if (s != null) {
            s.accepted();
        }
    }

    private void endSlowStart() {
        if (slowStart != null) {
            slowStart = null;
            updateGate();
        }
    }

    /** The provider asked for a pause until this time (the longest pause wins). */
    public void pauseUntil(long untilNanos) {
        if (untilNanos > pausedUntilNanos) {
            pausedUntilNanos = untilNanos;
        }
        probeNeeded = true;
        gated = true;
    }

    /**
     * How long until a call may be admitted through this scope: the rest of a pause,
     * {@link Bucket#ON_RELEASE} while a probe is out, 0 when open.
     */
    public long nanosUntilOpen(long nowNanos, long probeTimeoutNanos) {
        if (nowNanos < pausedUntilNanos) {
            return pausedUntilNanos - nowNanos;
        }
        SlowStart s = slowStart;
        if (s != null) {
            long untilRoom = s.nanosUntilRoom(nowNanos);
            if (untilRoom != 0) {
                return untilRoom;
            }
        }
        if (probeOutstanding) {
            if (nowNanos - probeStartedNanos < probeTimeoutNanos) {
                return Bucket.ON_RELEASE;
            }
            // the probe never reported back (lost, or a very slow answer): send another
            probeOutstanding = false;
            updateGate();
        }
        return 0;
    }

    /** Records an admission through this scope; true when it is the probe after a pause. */
    public boolean admitted(long nowNanos) {
        if (probeNeeded && !probeOutstanding) {
            probeOutstanding = true;
            probeStartedNanos = nowNanos;
            updateGate();
            return true;
        }
        return false;
    }

    /** The probe got an answer: accepted opens the scope; refused leaves it to the next pause. */
    public void probeAnswered(boolean accepted) {
        probeOutstanding = false;
        if (accepted) {
            probeNeeded = false;
        }
        updateGate();
    }

    /** The probe ended without an answer (cancelled, failed before sending): another call probes. */
    public void probeAbandoned() {
        probeOutstanding = false;
        updateGate();
    }

    private void updateGate() {
        gated = probeNeeded || probeOutstanding || slowStart != null;
    }

    /**
     * Whether calls may go through without the governor's lock: no pause, no probe under way and
     * no slow start. A pause always needs a probe, so the flag covers it. Any thread.
     */
    public boolean openToLane() {
        return !gated;
    }

    public boolean isPaused(long nowNanos) {
        return nowNanos < pausedUntilNanos;
    }

    /** Until when the scope is paused (monotonic nanos), or 0. */
    public long pausedUntilNanos() {
        return pausedUntilNanos;
    }

    public boolean isEvicted() {
        return evicted;
    }

    public void markEvicted() {
        evicted = true;
    }

    @Override
    public String toString() {
        return displayName;
    }
}
