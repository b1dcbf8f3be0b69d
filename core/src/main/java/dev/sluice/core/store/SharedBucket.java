package dev.sluice.core.store;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.FleetRoom;
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
final class SharedBucket extends Bucket implements FleetRoom {

    private static final int EPOCH_BITS = 16;
    /** How soon a budget the store refused asks again: refunds from other instances come back in a pass or two. */
    private static final long BUDGET_RETRY_NANOS = 250_000_000L;

    private static final long EPOCH_MASK = (1L << EPOCH_BITS) - 1;

    private final SharedStore store;
    /** The bucket's fleet-wide name in the shared state. */
    private final String key;
    /** {@link SyncRequest#TOKEN}, {@link SyncRequest#WINDOW} or {@link SyncRequest#CONCURRENCY}. */
    private final char kind;
    /** Concurrency: this bucket's field among the instance's holdings. */
    private final String holder;

    /** The store epoch this bucket follows; a change means the store fell back or came back. */
    private int epoch;
    /** The local bucket of capacity / N admitting while the store is unreachable; null when shared. */
    private Bucket fallback;

    /** Leased from the store and not used; negative after debits not yet sent. */
    private long stock;
    /** Windows: the window the stock belongs to. */
    private long stockWindow;
    /** Concurrency: slots held in the store and in use by calls. */
    private long inUse;
    /**
     * Concurrency: slots taken from the fallback bucket in the current fallback. Token bucket: room
     * taken from it, net of what came back, which the store is charged when it answers again.
     */
    private long fallbackTaken;
    /** Stock granted for waiting calls still queued: not given back as idle. */
    private long earmarked;
    /** The provider said no more than this remains; sent with the next sync (-1: nothing). */
    private long lowerTo = -1;
    /** Room to create the bucket with if the store lost it (after a fallback); -1: none. */
    private long initialRoom = -1;
    /** Concurrency: the holding last written to the store. */
    private long sentHeld;
    /** When the store said asking again may help (monotonic nanos); 0 when it did not. */
    private long retryAtNanos;
    /** The last admission from this bucket (monotonic nanos), to tell active from idle. */
    private long lastTakeNanos = Long.MIN_VALUE / 2;
    /** Room left fleet-wide at the last sync (-1: unknown), the basis of the fallback's level. */
    private long storeRoom = -1;
    /** When {@link #storeRoom} was heard (monotonic nanos). */
    private long storeRoomAtNanos;
    /** A window that went on admitting from its share after the store came back: the window it did. */
    private long recoveredInWindow = NOT_RECOVERED;

    private static final long NOT_RECOVERED = Long.MIN_VALUE;

    /** Whether the store's thread looks at this bucket in its passes. */
    private boolean tracked;

    SharedBucket(SharedStore store, Limit limit, String scopeValue, String key, int epoch) {
        super(limit, scopeValue, false);
        this.store = store;
        this.key = key;
        Dimension d = limit.dimension();
        this.kind = d == Dimension.CONCURRENCY
                ? SyncRequest.CONCURRENCY
                : limit.spec().algorithm() == Algorithm.TOKEN_BUCKET ? SyncRequest.TOKEN : SyncRequest.WINDOW;
        this.holder = kind == SyncRequest.CONCURRENCY ? store.holderName() : "";
        this.epoch = epoch;
    }

    @Override
    public boolean isWindowed() {
        return kind == SyncRequest.WINDOW;
    }

    @Override
    public FleetRoom fleetRoom() {
        return this;
    }

    @Override
    public boolean grants(long nowMillis) {
        // a share admits locally; while closing, the next window brings the room
        return fallback == null && !closing(nowMillis);
    }

    @Override
    public long beyondOwn(long sinceNanos, long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            return 0; // the store is away: this JVM's share is all there is
        }
        // only what the store said since the call arrived: other instances give back what they do not use
        return storeRoom < 0 || storeRoomAtNanos - sinceNanos < 0 ? Long.MAX_VALUE : storeRoom;
    }

    @Override
    public long asCounted(long nowNanos, long nowMillis) {
        long own = roomAsCounted(nowNanos, nowMillis);
        return fallback != null || storeRoom < 0 ? own : own + storeRoom;
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

    /** A share's burst: its part of the live burst, never below one call (0: its capacity). */
    private long fallbackBurst(int n) {
        long burst = limit().burst();
        return burst >= capacity() ? 0 : Math.max(1, burst / n);
    }

    private void enterFallback(long nowNanos, long nowMillis) {
        int n = store.fallbackInstances();
        long share = Math.max(1, capacity() / n);
        // a share of a provider's limit still mirrors it: a fixed window closes early, a token
        // bucket keeps its transit allowance, as the provider counts calls when they arrive
        LimitSpec spec = limit().spec().toBuilder()
                .level(ScopeLevel.ORGANIZATION)
                .tenant(null)
                .capacity(share)
                .burst(fallbackBurst(n))
                .shared(false)
                .build();
        Limit local =
                Limit.forScope(spec, scopeName() + " (fallback 1/" + n + ")", nowNanos, nowMillis, Guarantees.none());
        Bucket b = local.buckets().iterator().next();
        fallbackTaken = 0;
        if (kind == SyncRequest.CONCURRENCY) {
            if (inUse > 0) {
                b.takeMore(inUse, nowNanos, nowMillis); // calls in flight count against the share
            }
        } else if (storeRoom >= 0) {
            // the fleet was this close to its limit: start each share as full as the fleet was
            b.lowerRoomTo(storeRoom / n, nowNanos, nowMillis);
        }
        if (kind == SyncRequest.TOKEN && stock < 0) {
            // debits the store never heard of: the share starts without them, the store hears of them after
            b.takeMore(-stock, nowNanos, nowMillis);
            chargeOnTheWayBack(-stock);
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
            sentHeld = -1;
        } else {
            long shareRoom = b.room(nowNanos, nowMillis);
            long debt = kind == SyncRequest.TOKEN ? fallbackDebt(b, shareRoom) : 0;
            // a debt, sent with the next sync: see fallbackDebt
            stock = -debt;
            // If the store lost the bucket (restarted empty), start it no fuller than this JVM's
            // share is: the fleet has at least that much left (the shares split the capacity), and
            // this JVM cannot know what the others used. Scaling it by N over-admitted when the
            // first JVM back had used less of its share than the others (FleetIT: 40 for 30). The
            // debt goes in the same sync, after the bucket is created: it is added here to cancel.
            initialRoom = Math.max(0, Math.min(capacity(), shareRoom + debt));
        }
        fallbackTaken = 0;
        store.track(this, true);
    }

    /**
     * What a token bucket's share admitted while the store was away, to charge the shared bucket
     * with. The shared bucket went on refilling meanwhile while the provider counted these calls:
     * uncharged, the fleet would admit the fallback's refill twice (a 0.7 s stall at 20 a second:
     * 76 calls in 3 s for 60). After a long fallback the shared bucket is full and the shares tell
     * what is left: a share is charged no more than it is below full, or a fallback of minutes
     * would leave the fleet in debt for as long.
     */
    private long fallbackDebt(Bucket share, long shareRoom) {
        return Math.max(0, Math.min(fallbackTaken, share.capacity() - shareRoom));
    }

    /**
     * A token bucket's share admitted {@code amount}: the store is charged with it when it answers
     * again. The bucket is tracked, so the recovery follows it back at once and the charge goes in
     * the first pass; left to the bucket's next use, a second fallback coming first would drop it.
     */
    private void chargeOnTheWayBack(long amount) {
        fallbackTaken += amount;
        store.track(this, false); // in a fallback the store's thread only probes: nothing is sent yet
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

    /**
     * Chunk this JVM leases at once (0: no leasing): a share of the burst, which is the capacity
     * unless one is set, so what the JVMs hold ahead of demand stays a small part of what the
     * fleet may let through at once.
     */
    long chunk() {
        return store.chunkOf(kind == SyncRequest.TOKEN ? limit().burst() : capacity());
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
     * call admitted then would reach the provider in its next window.
     */
    private boolean closing(long nowMillis) {
        return kind == SyncRequest.WINDOW && limit().windowClosingAt(nowMillis);
    }

    @Override
    public long take(long amount, long nowNanos, long nowMillis) {
        follow(nowNanos, nowMillis);
        if (fallback != null) {
            long w = fallback.take(amount, nowNanos, nowMillis);
            if (kind == SyncRequest.CONCURRENCY) {
                fallbackTaken += amount;
            } else if (kind == SyncRequest.TOKEN) {
                chargeOnTheWayBack(amount);
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

    private static long lowWater(long chunk) {
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
            fallbackTaken = Math.max(0, fallbackTaken - amount);
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
            if (kind == SyncRequest.TOKEN) {
                chargeOnTheWayBack(amount);
            }
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
            int n = store.fallbackInstances();
            fallback.limit().setCapacity(Math.max(1, capacity() / n), nowNanos, nowMillis);
            fallback.limit().setBurst(fallbackBurst(n), nowNanos, nowMillis);
        }
        // The shared state takes the capacity and the ceiling from every sync, and clamps its level
        // to that ceiling; stock held here beyond the new chunk goes back to it at the next pass.
        if (kind == SyncRequest.TOKEN && stock > chunk()) {
            store.track(this, true);
        }
    }

    // ------------------------------------------------------------------ for the store (lock held)

    /** The bucket's fleet-wide name in the shared state. */
    String key() {
        return key;
    }

    /** Leased and unused; negative after debits not yet sent. */
    long stock() {
        return stock;
    }

    /** Whether a call took from it within the last {@code idleNanos}: an active bucket keeps its lease. */
    boolean activeAt(long nowNanos, long idleNanos) {
        return nowNanos - lastTakeNanos < idleNanos;
    }

    /** Becomes one of the buckets the store's passes look at; false when it was already. */
    boolean startTracking() {
        if (tracked) {
            return false;
        }
        tracked = true;
        return true;
    }

    /** No longer looked at by the store's passes (until it has something for the store again). */
    void stopTracking() {
        tracked = false;
    }

    /**
     * What a pass gives back to the store: the stock beyond what it keeps (a chunk while active,
     * and what waiting calls were granted), or the debt (negative) as it is.
     */
    long surplus(boolean active) {
        long keep = Math.max(active ? chunk() : 0, earmarked);
        return stock < 0 ? stock : Math.max(0, stock - keep);
    }

    /** Whether a pass should lease it a chunk ahead of demand: active, below half a chunk, not told to wait. */
    boolean wantsLease(boolean active, long nowNanos, long nowMillis) {
        long chunk = chunk();
        return chunk > 0
                && active
                && stock < lowWater(chunk)
                && nowNanos - retryAtNanos >= 0
                && !closing(nowMillis)
                && !inFallback();
    }

    /** Whether a pass giving back {@code surplus} (and leasing, if {@code lease}) has anything to tell the store. */
    boolean hasNews(long surplus, boolean lease) {
        boolean conc = kind == SyncRequest.CONCURRENCY;
        long held = inUse + Math.max(0, stock - surplus);
        return (!conc && surplus != 0) || (conc && held != sentHeld) || lowerTo >= 0 || initialRoom >= 0 || lease;
    }

    /**
     * This bucket's entry in a pass that gives back {@code surplus}, with the provider's lower
     * figure and the room to re-create it with, which are said once. What is given back leaves the
     * stock now: if the trip fails it is lost, never doubled.
     */
    SyncRequest.Entry report(long window, long surplus, long nowMillis) {
        boolean conc = kind == SyncRequest.CONCURRENCY;
        long held = inUse + Math.max(0, stock - surplus);
        stock -= surplus;
        if (conc) {
            stock = Math.max(0, stock);
        }
        SyncRequest.Entry e = entry(window, nowMillis);
        e.adjust = conc ? 0 : surplus;
        e.held = conc ? held : 0;
        e.lowerTo = lowerTo;
        e.initialRoom = initialRoom;
        lowerTo = -1;
        initialRoom = -1;
        return e;
    }

    /** What to lease ahead of demand after {@link #report}: up to a full chunk. */
    long leaseWanted() {
        return chunk() - stock;
    }

    /** This bucket's entry when it only comes along with a waiting call's group: its holding unchanged. */
    SyncRequest.Entry entryAsIs(long nowMillis) {
        SyncRequest.Entry e = entry(windowAt(nowMillis), nowMillis);
        e.held = sentHeld < 0 ? inUse + stock : sentHeld;
        return e;
    }

    /** The entry that gives back every unused lease and concurrency holding: this JVM stops admitting. */
    SyncRequest.Entry giveBackAll(long nowMillis) {
        SyncRequest.Entry e = entry(windowAt(nowMillis), nowMillis);
        if (kind == SyncRequest.CONCURRENCY) {
            e.held = 0;
        } else {
            e.adjust = stock;
        }
        stock = 0;
        return e;
    }

    private SyncRequest.Entry entry(long window, long nowMillis) {
        Limit l = limit();
        if (kind == SyncRequest.WINDOW) {
            return new SyncRequest.Entry(key, kind, capacity(), 0, 0, window, l.nextWindowStartAt(nowMillis), "");
        }
        long ceiling = kind == SyncRequest.TOKEN ? (long) Math.floor(l.refillCeiling()) : 0;
        return new SyncRequest.Entry(key, kind, capacity(), l.windowMillis(), ceiling, 0, 0, holder);
    }

    /** The store answered a pass this bucket's {@code sent} entry was in: {@code room} is left fleet-wide. */
    void synced(SyncRequest.Entry sent, long room, long nowNanos) {
        storeRoom = room;
        storeRoomAtNanos = nowNanos;
        if (kind == SyncRequest.CONCURRENCY) {
            sentHeld = sent.held;
        }
    }

    /** Whether the store said to wait before asking again for this bucket. */
    boolean mustWait(long nowNanos) {
        return retryAtNanos != 0 && retryAtNanos - nowNanos > 0;
    }

    /** When asking again may help (monotonic nanos); 0 when the store did not say. */
    long retryAtNanos() {
        return retryAtNanos;
    }

    /** The store refused or had nothing to lease: ask again from {@code nanos} on. */
    void retryAt(long nanos, long nowNanos) {
        if (limit().dimension() == Dimension.SPEND && nanos - (nowNanos + BUDGET_RETRY_NANOS) > 0) {
            // a budget has no refill to wait for, but other instances give back what their calls did
            // not spend: ask again soon, not at the end of the period
            nanos = nowNanos + BUDGET_RETRY_NANOS;
        }
        retryAtNanos = nanos;
    }

    /**
     * The store granted {@code amount} for a sent entry counting in window {@code windowId}: it
     * joins the stock, unless the period it was granted for is over (it lapses in the store).
     */
    void credit(long amount, long windowId, long nowNanos, long nowMillis) {
        if (amount <= 0) {
            return;
        }
        follow(nowNanos, nowMillis);
        if (kind == SyncRequest.CONCURRENCY) {
            sentHeld += amount; // held in the store either way, until given back
        }
        if (inFallback() || (kind == SyncRequest.WINDOW && windowAt(nowMillis) != windowId)) {
            return; // granted for a period that is over: it lapses in the store
        }
        stock += amount;
        retryAtNanos = 0;
        store.track(this, false);
    }

    /** Stock granted to a waiting call: kept for it, not given back as idle. */
    void earmark(long amount) {
        earmarked += amount;
    }

    /** The call it was kept for left its queue: what it did not take goes back when idle. */
    void releaseEarmark(long amount) {
        earmarked = Math.max(0, earmarked - amount);
        if (stock > 0) {
            store.track(this, false);
        }
    }

    /** Whether this bucket still holds anything the store must give back or hear about. Lock held. */
    boolean holdsAnything() {
        return stock != 0
                || inUse > 0
                || lowerTo >= 0
                || initialRoom >= 0
                || (kind == SyncRequest.CONCURRENCY && sentHeld != 0);
    }

    @Override
    public String toString() {
        return "SharedBucket{" + key + " stock=" + stock + (fallback != null ? " fallback=" + fallback : "") + '}';
    }
}
