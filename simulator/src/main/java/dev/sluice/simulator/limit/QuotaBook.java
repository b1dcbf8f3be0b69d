package dev.sluice.simulator.limit;

import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Scope;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * All buckets of a simulator: one meter per limit and scope value, created on first use. A request
 * is admitted only if every limit on its path has room, and then charged on all of them together;
 * one lock makes that atomic (a provider simulator serves thousands of requests per second at
 * most, so contention is not a concern, over-admission would be).
 */
public final class QuotaBook {
    private final List<Limit> limits;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Meter> meters = new HashMap<>();
    private final Map<String, Neighbour> neighbours = new HashMap<>();
    private final Neighbour.Listener neighbourListener;

    /**
     * @param limits resolved limits (algorithm and scope set)
     * @param clock the time source; tests pass a fake one
     */
    public QuotaBook(List<Limit> limits, Clock clock) {
        this(limits, clock, List.of(), Neighbour.Listener.NONE);
    }

    /**
     * @param limits resolved limits (algorithm and scope set)
     * @param clock the time source; tests pass a fake one
     * @param neighbours consumers sharing organizations' limits unseen (at most one per organization)
     * @param neighbourListener told what each neighbour takes
     */
    public QuotaBook(
            List<Limit> limits, Clock clock, List<Neighbour> neighbours, Neighbour.Listener neighbourListener) {
        this.limits = List.copyOf(limits);
        this.clock = clock;
        this.neighbourListener = neighbourListener;
        for (Neighbour n : neighbours) {
            if (this.neighbours.put(n.organization(), n) != null) {
                throw new IllegalArgumentException("two neighbours in " + n.organization());
            }
        }
        for (Limit limit : this.limits) {
            if (limit.algorithm() == null || limit.scope() == null) {
                throw new IllegalArgumentException("limit not resolved: " + limit);
            }
        }
    }

    public List<Limit> limits() {
        return limits;
    }

    /**
     * Admits the request if every limit has room for its demand, charging all of them; otherwise
     * charges nothing and names the limit that refused (the one with the longest wait).
     */
    public Admission admit(ScopeKeys keys, Map<Dimension, Long> demand) {
        lock.lock();
        try {
            long now = nanos();
            LimitStatus refusedBy = null;
            long requested = 0;
            Duration wait = Duration.ZERO;
            boolean tooLarge = false;
            for (Limit limit : limits) {
                long amount = demand.getOrDefault(limit.dimension(), 0L);
                if (amount <= 0) {
                    continue;
                }
                Meter meter = meter(limit, keys, now);
                if (meter.hasRoom(amount, now)) {
                    continue;
                }
                boolean never = amount > meter.ceiling();
                Duration until = never ? null : meter.untilRoomFor(amount, now);
                // Report the worst refusal: one that can never pass, then an unknown wait, then the longest.
                if (refusedBy == null
                        || severity(never, until) > severity(tooLarge, wait)
                        || (!never && until != null && wait != null && until.compareTo(wait) > 0)) {
                    refusedBy = status(limit, meter, now);
                    requested = amount;
                    wait = until;
                    tooLarge = never;
                }
            }
            if (refusedBy != null) {
                return new Admission(false, refusedBy, requested, wait, tooLarge, statuses(keys, now), keys, Map.of());
            }
            Map<Dimension, Long> charged = new EnumMap<>(Dimension.class);
            for (Limit limit : limits) {
                long amount = demand.getOrDefault(limit.dimension(), 0L);
                if (amount > 0) {
                    meter(limit, keys, now).take(amount, now);
                    charged.put(limit.dimension(), amount);
                }
            }
            return new Admission(true, null, 0, null, false, statuses(keys, now), keys, charged);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Charges a request that was not admitted on the limits of one dimension, as providers that count
     * failed requests do; never drives a bucket below empty.
     */
    public void chargeRefused(ScopeKeys keys, Dimension dimension, long amount) {
        lock.lock();
        try {
            long now = nanos();
            for (Limit limit : limits) {
                if (limit.dimension() == dimension) {
                    meter(limit, keys, now).takeAtMostAvailable(amount, now);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Gives back part of what an admission charged on one dimension (a true-up at the end). */
    public void refund(Admission admission, Dimension dimension, long amount) {
        if (!admission.admitted() || amount <= 0) {
            return;
        }
        lock.lock();
        try {
            long now = nanos();
            for (Limit limit : limits) {
                if (limit.dimension() == dimension) {
                    meter(limit, admission.keys(), now).giveBack(amount, now);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private static int severity(boolean never, Duration wait) {
        return never ? 2 : wait == null ? 1 : 0;
    }

    /** Frees the concurrency slots an admission holds; call once, when the response has ended. */
    public void release(Admission admission) {
        Long slots = admission.charged().get(Dimension.CONCURRENCY);
        if (slots != null) {
            refund(admission, Dimension.CONCURRENCY, slots);
        }
    }

    /** Every limit's state for these keys now, without charging anything. */
    public List<LimitStatus> statuses(ScopeKeys keys) {
        lock.lock();
        try {
            return statuses(keys, nanos());
        } finally {
            lock.unlock();
        }
    }

    /** Forgets every bucket: all limits start full again. */
    public void reset() {
        lock.lock();
        try {
            meters.clear();
        } finally {
            lock.unlock();
        }
    }

    private List<LimitStatus> statuses(ScopeKeys keys, long now) {
        List<LimitStatus> out = new ArrayList<>(limits.size());
        for (Limit limit : limits) {
            out.add(status(limit, meter(limit, keys, now), now));
        }
        return out;
    }

    private LimitStatus status(Limit limit, Meter meter, long now) {
        Duration untilFull = meter.untilFull(now);
        Instant resetAt = Instant.ofEpochSecond(0, now).plus(untilFull);
        return new LimitStatus(limit, meter.remaining(now), untilFull, resetAt);
    }

    private Meter meter(Limit limit, ScopeKeys keys, long now) {
        String id = limits.indexOf(limit) + "|" + keys.valueFor(limit.scope());
        return meters.computeIfAbsent(id, unused -> {
            Meter meter = newMeter(limit, now);
            // A neighbour shares what its organization's buckets hold; key buckets are not its own.
            Neighbour neighbour = limit.scope() == Scope.ORGANIZATION ? neighbours.get(keys.organization()) : null;
            return neighbour == null ? meter : new NeighbourMeter(meter, neighbour, limit, neighbourListener, now);
        });
    }

    /** Brings every neighbour's consumption up to now (so a ledger read after a quiet spell is current). */
    public void catchUpNeighbours() {
        lock.lock();
        try {
            long now = nanos();
            for (Meter meter : meters.values()) {
                meter.remaining(now);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The neighbours configured, by organization. */
    public Map<String, Neighbour> neighbours() {
        return Map.copyOf(neighbours);
    }

    private static Meter newMeter(Limit limit, long now) {
        if (limit.dimension() == Dimension.CONCURRENCY) {
            return new ConcurrencyMeter(limit.capacity());
        }
        if (limit.algorithm() == Algorithm.FIXED_WINDOW) {
            return new FixedWindowMeter(limit.capacity(), limit.window(), now);
        }
        return new TokenBucketMeter(limit.capacity(), limit.window(), limit.effectiveBurst(), now);
    }

    private long nanos() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
