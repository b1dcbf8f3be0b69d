package dev.sluice.core.store;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Guarantees;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;

/**
 * A bucket whose room lives in the shared store: locally it holds only the <em>stock</em> this
 * JVM leased (already charged in the shared state), so admitting from it never waits for the
 * store and the fleet never admits more than the store granted. The store's thread keeps the
 * stock supplied (ahead of demand when leasing chunks, or exactly what a waiting call needs) and
 * takes back what lies unused; refunds go to the stock and return with it.
 *
 * <p>When the store is unreachable the bucket admits from a local bucket of the same kind with
 * capacity / N ({@link #fallback}) until it is back. What {@link #take} returns says in which of
 * these periods a reservation was made (the store's epoch, in the low 16 bits) and in which
 * window, so a refund never credits a period it was not taken from.
 *
 * <p>Guarded by the governor's lock, like every bucket.
 */
final class SharedBucket extends Bucket {

    private static final int EPOCH_BITS = 16;
    private static final long EPOCH_MASK = (1L << EPOCH_BITS) - 1;

    private final SharedStore store;
    /** The bucket's fleet-wide name in the shared state. */
    final String key;
    /** {@link SyncRequest#TOKEN}, {@link SyncRequest#WINDOW} or {@link SyncRequest#CONCURRENCY}. */
    final char kind;
    /** Concurrency: this bucket's field among the instance's holdings. */
    final String holder;

    /** The store epoch this bucket follows; a change means the store fell back or came back. */
    private int epoch;
    /** The local bucket of capacity / N admitting while the store is unreachable; null when shared. */
    private Bucket fallback;

    /** Leased from the store and not used; negative after debits not yet sent. */
    long stock;
    /** Windows: the window the stock belongs to. */
    long stockWindow;
    /** Concurrency: slots held in the store and in use by calls. */
    long inUse;
    /** Concurrency: slots taken from the fallback bucket in the current fallback. */
    private long fallbackTaken;
    /** Stock granted for waiting calls still queued: not given back as idle. */
    long earmarked;
    /** The provider said no more than this remains; sent with the next sync (-1: nothing). */
    long lowerTo = -1;
    /** Room to create the bucket with if the store lost it (after a fallback); -1: none. */
    long initialRoom = -1;
    /** Concurrency: the holding last written to the store. */
    long sentHeld;
    /** When the store said asking again may help (monotonic nanos); 0 when it did not. */
    long retryAtNanos;
    /** The last admission from this bucket (monotonic nanos), to tell active from idle. */
    long lastTakeNanos = Long.MIN_VALUE / 2;
    /** Room left fleet-wide at the last sync (-1: unknown), the basis of the fallback's level. */
    long storeRoom = -1;
    /** A window that went on admitting from its share after the store came back: the window it did. */
    private long recoveredInWindow = NOT_RECOVERED;
    private static final long NOT_RECOVERED = Long.MIN_VALUE;

    /** Whether the store's thread looks at this bucket in its passes. */
    boolean tracked;

    SharedBucket(SharedStore store, Limit limit, String scopeValue, String key, int epoch) {
        super(limit, scopeValue, false);
        this.store = store;
        this.key = key;
        Dimension d = limit.dimension();
        this.kind = d == Dimension.CONCURRENCY ? SyncRequest.CONCURRENCY
                : limit.spec().algorithm() == Algorithm.TOKEN_BUCKET ? SyncRequest.TOKEN : SyncRequest.WINDOW;
        this.holder = kind == SyncRequest.CONCURRENCY ? store.holderName() : "";
        this.epoch = epoch;
    }

    @Override
    public boolean isWindowed() {
        return kind == SyncRequest.WINDOW;
    }

    @Override
    public boolean isShared() {
        return true;
    }

    @Override
    public boolean tracksTakes() {
        return true;
    }

    /** Whether admissions come from the local fallback bucket now. Lock held. */
    boolean inFallback() {
        return fallback != null;
    }

    /**
     * Follows the store into or out of a fallback; lazily, on each use. A window goes back to the
     * store only when the window its share admitted in is over: the store never saw those calls,
     * so handing out its room in that same window would admit them twice.
     */
    void follow(long nowNanos, long nowMillis) {
        int current = store.epoch();
        if (current == epoch) {
            return;
        }
        if (store.inFallback()) {
            epoch = current;
            recoveredInWindow = NOT_RECOVERED; // a new fallback: the next recovery waits out its own window
            enterFallback(nowNanos, nowMillis);
            return;
        }
        if (kind == SyncRequest.WINDOW && fallback != null) {
            long window = limit().windowStartAt(nowMillis);
            if (recoveredInWindow == NOT_RECOVERED) {
                recoveredInWindow = window;
            }
            if (window == recoveredInWindow) {
                return;
            }
        }
        recoveredInWindow = NOT_RECOVERED;
        epoch = current;
        leaveFallback(nowNanos, nowMillis);
    }

    private void enterFallback(long nowNanos, long nowMillis) {
        int n = store.fallbackInstances();
        long share = Math.max(1, capacity() / n);
        // a share of a provider's limit still mirrors it: a fixed window closes early, a token
        // bucket keeps its transit allowance, as the provider counts calls when they arrive
        LimitSpec spec = limit().spec().toBuilder().level(ScopeLevel.ORGANIZATION).tenant(null).capacity(share)
                .shared(false).build();
        Limit local = Limit.forScope(spec, scopeName() + " (fallback 1/" + n + ")", nowNanos, nowMillis,
                Guarantees.none());
        Bucket b = local.buckets().iterator().next();
        if (kind == SyncRequest.CONCURRENCY) {
            if (inUse > 0) {
                b.takeMore(inUse, nowNanos, nowMillis); // calls in flight count against the share
            }
            fallbackTaken = 0;
        } else if (storeRoom >= 0) {
            // the fleet was this close to its limit: start each share as full as the fleet was
            b.lowerRoomTo(storeRoom / n, nowNanos, nowMillis);
        }
        fallback = b;
        stock = 0; // already charged in the store: given up, never used twice
        earmarked = 0;
        lowerTo = -1;
        retryAtNanos = 0;
    }

    private void leaveFallback(long nowNanos, long nowMillis) {
        Bucket b = fallback;
        fallback = null;
        stock = 0;
        earmarked = 0;
        retryAtNanos = 0;
        if (b == null) {
            return;
        }
        if (kind == SyncRequest.CONCURRENCY) {
            inUse += fallbackTaken; // still in flight: the store must count them
            fallbackTaken = 0;
            sentHeld = -1;
        } else {
            // If the store lost the bucket (restarted empty), start it no fuller than this JVM's
            // share is: the fleet has at least that much left (the shares split the capacity), and
            // this JVM cannot know what the others used. Scaling it by N over-admitted when the
            // first JVM back had used less of its share than the others (FleetIT: 40 for 30).
            initialRoom = Math.max(0, Math.min(capacity(), b.room(nowNanos, nowMillis)));
        }
        store.track(this, true);
    }

    private long tag(long window) {
        return (window << EPOCH_BITS) | (epoch & EPOCH_MASK);
    }

    /** Drops stock leased for a window that ended: the store counts the new window afresh. */
    private void roll(long nowMillis) {
        if (kind == SyncRequest.WINDOW) {
            long start = limit().windowStartAt(nowMillis);
            if (start != stockWindow) {
                stockWindow = start;
                stock = 0;
                earmarked = 0;
            }
        }
    }

    /** The window a sync at {@code nowMillis} counts in (0 for other kinds). Lock held. */
    long windowAt(long nowMillis) {
        roll(nowMillis);
        return stockWindow;
    }

    /** Chunk this JVM leases at once (0: no leasing). */
    long chunk() {
        return store.chunkOf(capacity());
    }

    @Override
    public long room(long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            return fallback.room(nowNanos, nowMillis);
        }
        roll(nowMillis);
        return closing(nowMillis) ? Math.min(0, stock) : stock;
    }

    /**
     * A window mirroring the provider admits nothing in its last moments, as a local one does: a
     * call admitted then would reach the provider in its next window. Lock held.
     */
    boolean closing(long nowMillis) {
        return kind == SyncRequest.WINDOW && limit().windowClosingAt(nowMillis);
    }

    @Override
    public boolean awaitsStore(long nowMillis) {
        // a share admits locally; while closing, the next window brings the room
        return fallback == null && !closing(nowMillis);
    }

    @Override
    public long take(long amount, long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            long w = fallback.take(amount, nowNanos, nowMillis);
            if (kind == SyncRequest.CONCURRENCY) {
                fallbackTaken += amount;
            }
            return tag(w);
        }
        roll(nowMillis);
        stock -= amount;
        if (kind == SyncRequest.CONCURRENCY) {
            inUse += amount;
        }
        lastTakeNanos = nowNanos;
        long chunk = chunk();
        if (stock < 0 || (chunk > 0 && stock < lowWater(chunk))) {
            store.track(this, true); // lease more before the next calls find it empty
        }
        return tag(stockWindow);
    }

    static long lowWater(long chunk) {
        return Math.max(1, (chunk + 1) / 2);
    }

    @Override
    public void giveBack(long amount, long tag, long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        boolean sameEpoch = (tag & EPOCH_MASK) == (epoch & EPOCH_MASK);
        long window = tag >>> EPOCH_BITS;
        if (kind == SyncRequest.CONCURRENCY) {
            if (fallback != null) {
                fallback.giveBack(amount, window, nowNanos, nowMillis);
                if (sameEpoch) {
                    fallbackTaken = Math.max(0, fallbackTaken - amount);
                    return;
                }
            }
            inUse = Math.max(0, inUse - amount);
            if (fallback == null) {
                stock += amount;
            }
            store.track(this, false);
            return;
        }
        if (!sameEpoch) {
            return; // taken before the store fell back or came back: given up, never credited twice
        }
        if (fallback != null) {
            fallback.giveBack(amount, window, nowNanos, nowMillis);
            return;
        }
        roll(nowMillis);
        if (kind == SyncRequest.WINDOW && window != stockWindow) {
            return; // that window is over
        }
        stock += amount;
        store.track(this, false);
    }

    @Override
    public void takeMore(long amount, long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            fallback.takeMore(amount, nowNanos, nowMillis);
            return;
        }
        roll(nowMillis);
        stock -= amount; // a debt, sent to the store with the next sync
        if (kind == SyncRequest.CONCURRENCY) {
            inUse += amount;
        }
        store.track(this, false);
    }

    @Override
    public long nanosUntilRoom(long amount, long nowNanos, long nowMillis) {
        if (amount > capacity()) {
            return NEVER;
        }
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            return fallback.nanosUntilRoom(amount, nowNanos, nowMillis);
        }
        roll(nowMillis);
        if (closing(nowMillis)) {
            return Math.max(1, limit().nextWindowStartAt(nowMillis) - nowMillis) * 1_000_000L;
        }
        if (stock >= amount) {
            return 0;
        }
        long retry = retryAtNanos - nowNanos;
        // otherwise room comes when the store grants it, and the store dispatches the queues then
        return retryAtNanos != 0 && retry > 0 ? retry : ON_RELEASE;
    }

    @Override
    public void lowerRoomTo(long remaining, long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            fallback.lowerRoomTo(remaining / store.fallbackInstances(), nowNanos, nowMillis);
            return;
        }
        roll(nowMillis);
        if (stock > remaining) {
            stock = Math.max(0, remaining);
        }
        lowerTo = lowerTo < 0 ? remaining : Math.min(lowerTo, remaining);
        store.track(this, true); // the provider said so: the rest of the fleet should hear it now
    }

    @Override
    public void capacityChanged(long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            fallback.limit().setCapacity(Math.max(1, capacity() / store.fallbackInstances()), nowNanos, nowMillis);
        }
        // the shared state takes the capacity from every sync
    }

    @Override
    public long nanosUntilAtRest(long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (reserved() > 0 || inUse > 0 || stock != 0 || lowerTo >= 0) {
            return NEVER;
        }
        return fallback != null ? fallback.nanosUntilAtRest(nowNanos, nowMillis) : 0;
    }

    /** Whether this bucket still holds anything the store must give back or hear about. Lock held. */
    boolean holdsAnything() {
        return stock != 0 || inUse > 0 || lowerTo >= 0 || initialRoom >= 0
                || (kind == SyncRequest.CONCURRENCY && sentHeld != 0);
    }

    @Override
    public String toString() {
        return "SharedBucket{" + key + " stock=" + stock + (fallback != null ? " fallback=" + fallback : "") + '}';
    }
}
