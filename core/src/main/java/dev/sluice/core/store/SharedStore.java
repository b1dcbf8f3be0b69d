package dev.sluice.core.store;

import dev.sluice.core.jmx.StoreBean;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store whose shared buckets live in a {@link FleetBackend}, kept supplied by one daemon thread,
 * {@code sluice-store}, that never holds the governor's lock while it talks to the backend. A pass
 * of that thread collects under the lock what to send (stock to give back, debts, the provider's
 * lower figures, concurrency holdings, leases to top up, the exact needs of waiting calls), makes
 * one round trip, and applies the answer under the lock, after which the governor dispatches its
 * queues. It also announces the instance alive (the heartbeat that gives N and lets a dead
 * instance's holdings expire).
 *
 * <p>A failed or slow round trip switches every shared bucket to a local bucket of capacity / N at
 * once (lazily, as each is next used: one epoch change); the thread probes the backend every
 * heartbeat and switches back when it answers.
 */
final class SharedStore implements QuotaStore {

    private static final Logger LOG = LoggerFactory.getLogger(QuotaStore.class);

    /** Most waiting calls' reservations sent in one round trip. */
    private static final int MAX_GROUPS_PER_PASS = 256;

    /** The store's rhythm; tests shorten it. */
    static final class Timing {
        static final Timing DEFAULT = new Timing(500, 2_000, 5, 500);

        final long heartbeatNanos;
        final long aliveMillis;
        final long lingerNanos;
        final long idleNanos;

        /**
         * @param heartbeatMillis how often the instance announces itself (and probes while in fallback)
         * @param aliveMillis how long an instance counts as alive after its last heartbeat: a
         *     dead instance's concurrency holdings are freed after this
         * @param lingerMillis how long returns and refunds wait to travel together
         * @param idleMillis after this long without admissions a bucket's lease is given back
         */
        Timing(long heartbeatMillis, long aliveMillis, long lingerMillis, long idleMillis) {
            this.heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(heartbeatMillis);
            this.aliveMillis = aliveMillis;
            this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMillis);
            this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
        }
    }

    private final FleetBackend backend;
    private final double leaseChunk;
    private final Timing timing;
    private final String instanceId;
    private final AtomicLong holders = new AtomicLong();

    private volatile Host host;
    private volatile Thread thread;
    private volatile boolean closed;
    private ObjectName mbeanName;

    private final Fallback fallback;

    // written under the governor's lock by the store's thread; volatile for status readers
    private volatile String lastError;
    private final AtomicLong grants = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();

    // guarded by the governor's lock
    private final Set<SharedBucket> tracked = new LinkedHashSet<>();
    private final Wants wants = new Wants();

    /** Work waits that should not: waiting calls, an empty lease. */
    private volatile boolean urgent;
    /** Work that may wait {@link Timing#lingerNanos}: stock to give back, refunds, debits. */
    private volatile boolean lazy;
    /** When a refused reservation may be asked again (monotonic nanos), or MAX_VALUE. */
    private volatile long nextRetryNanos = Long.MAX_VALUE;

    SharedStore(FleetBackend backend, int instances, double leaseChunk, Timing timing) {
        this.backend = backend;
        this.fallback = new Fallback(backend, instances);
        this.leaseChunk = leaseChunk;
        this.timing = timing;
        this.instanceId = "i" + ProcessHandle.current().pid() + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt() | 0x10000000);
    }

    // ------------------------------------------------------------------ placement (lock held)

    @Override
    public Bucket place(Limit limit, String scopeValue, Bucket local, long nowNanos, long nowMillis) {
        LimitSpec spec = limit.spec();
        if (!spec.shared() && !spec.mirrorsProvider()) {
            return local;
        }
        String key = scopeValue.isEmpty() ? spec.id() : spec.id() + "|" + scopeValue;
        // a bucket born during a fallback starts in it
        return new SharedBucket(this, limit, scopeValue, key, fallback.epochOfNewBucket());
    }

    @Override
    public boolean sharesAny() {
        return true;
    }

    int epoch() {
        return fallback.epoch();
    }

    boolean inFallback() {
        return fallback.active();
    }

    /** N of the fallback share capacity / N. */
    int fallbackInstances() {
        return fallback.instances();
    }

    long chunkOf(long capacity) {
        return leaseChunk <= 0 ? 0 : Math.max(1, Math.round(leaseChunk * capacity));
    }

    String holderName() {
        return instanceId + "/" + holders.incrementAndGet();
    }

    /** A bucket has something for the store; {@code now} when a call may soon wait for it. Lock held. */
    void track(SharedBucket b, boolean now) {
        if (b.startTracking()) {
            tracked.add(b);
        }
        if (now) {
            signalUrgent();
        } else if (!lazy) {
            lazy = true;
            LockSupport.unpark(thread);
        }
    }

    private void signalUrgent() {
        if (!urgent) {
            urgent = true;
            LockSupport.unpark(thread);
        }
    }

    // ------------------------------------------------------------------ waiting calls (lock held)

    @Override
    public void want(Object waiter, Bucket[] buckets, long[] amounts) {
        if (closed || fallback.active()) {
            return;
        }
        if (wants.add(waiter, buckets, amounts)) {
            signalUrgent();
        }
    }

    @Override
    public void forget(Object waiter) {
        wants.forget(waiter);
    }

    // ------------------------------------------------------------------ the store's thread

    @Override
    public void attach(Host governor) {
        if (this.host != null) {
            throw new IllegalStateException("a store serves one governor");
        }
        this.host = governor;
        Thread t = new Thread(this::run, "sluice-store");
        t.setDaemon(true);
        this.thread = t;
        t.start();
        registerMBean();
    }

    private void run() {
        long nextHeartbeat = System.nanoTime();
        long lazyDue = Long.MAX_VALUE;
        while (!closed) {
            long now = System.nanoTime();
            if (lazy && lazyDue == Long.MAX_VALUE) {
                lazyDue = now + timing.lingerNanos;
            }
            boolean heartbeat = now - nextHeartbeat >= 0;
            boolean work = !fallback.active() && (urgent || now - lazyDue >= 0 || now - nextRetryNanos >= 0);
            if (!heartbeat && !work) {
                long due = Math.min(nextHeartbeat - now, fallback.active() ? Long.MAX_VALUE
                        : Math.min(lazyDue == Long.MAX_VALUE ? Long.MAX_VALUE : lazyDue - now,
                                nextRetryNanos == Long.MAX_VALUE ? Long.MAX_VALUE : nextRetryNanos - now));
                LockSupport.parkNanos(this, Math.max(10_000L, due));
                continue;
            }
            urgent = false;
            lazy = false;
            lazyDue = Long.MAX_VALUE;
            if (heartbeat) {
                nextHeartbeat = now + timing.heartbeatNanos;
            }
            try {
                pass(heartbeat);
            } catch (Throwable unexpected) {
                // a bug here must not stop the thread that supplies every shared bucket
                lastError = unexpected.toString();
                LOG.warn("[sluice] store pass failed unexpectedly", unexpected);
                LockSupport.parkNanos(this, timing.heartbeatNanos);
            }
        }
    }

    /** One round trip: collect under the lock, talk without it, apply under it. */
    private void pass(boolean heartbeat) {
        Host h = host;
        Pass p = h.withLock((n, m) -> collect(n, m, heartbeat));
        if (p == null) {
            return;
        }
        SyncReply reply;
        try {
            reply = backend.sync(p.request);
        } catch (Throwable failure) {
            if (!p.probe || !fallback.active()) {
                h.withLock((n, m) -> {
                    failed(failure, n);
                    return null;
                });
            } else {
                lastError = String.valueOf(failure);
            }
            return;
        }
        h.withLock((n, m) -> {
            apply(p, reply, n, m);
            return null;
        });
    }

    /** What one pass sends, and what to do with each part of the answer. */
    private static final class Pass {
        final SyncRequest request;
        final boolean probe;
        final List<SharedBucket> entryBuckets = new ArrayList<>();
        /** Per group: the Want it serves, or the bucket it tops up. */
        final List<Object> groupOwners = new ArrayList<>();

        Pass(SyncRequest request, boolean probe) {
            this.request = request;
            this.probe = probe;
        }
    }

    private Pass collect(long nowNanos, long nowMillis, boolean heartbeat) {
        SyncRequest r = new SyncRequest(instanceId, timing.aliveMillis);
        if (fallback.active()) {
            return heartbeat ? new Pass(r, true) : null;
        }
        Pass p = new Pass(r, false);
        Map<SharedBucket, Integer> entryOf = new IdentityHashMap<>();
        Set<String> keys = new HashSet<>();
        for (Iterator<SharedBucket> it = tracked.iterator(); it.hasNext();) {
            SharedBucket b = it.next();
            b.follow(nowNanos, nowMillis);
            long window = b.windowAt(nowMillis);
            boolean active = b.activeAt(nowNanos, timing.idleNanos);
            long surplus = b.surplus(active);
            boolean lease = b.wantsLease(active, nowNanos, nowMillis);
            if (!b.hasNews(surplus, lease)) {
                if (!b.holdsAnything() && !active) {
                    it.remove();
                    b.stopTracking();
                }
                continue;
            }
            if (!keys.add(b.key())) {
                continue; // a second live bucket for one key (an evicted one still holding): next pass
            }
            int idx = r.add(b.report(window, surplus, nowMillis));
            entryOf.put(b, idx);
            p.entryBuckets.add(b);
            if (lease) {
                r.add(new SyncRequest.Group(new int[] {idx}, new long[] {0}, new long[] {b.leaseWanted()}));
                p.groupOwners.add(b);
            }
        }
        long nextRetry = Long.MAX_VALUE;
        Map<SharedBucket, Long> avail = new IdentityHashMap<>();
        int groups = 0;
        for (Wants.Want w : wants.all()) {
            if (!w.unasked()) {
                continue;
            }
            if (groups >= MAX_GROUPS_PER_PASS) {
                urgent = true; // the rest go in the next pass
                break;
            }
            boolean wait = false;
            for (SharedBucket b : w.buckets) {
                b.follow(nowNanos, nowMillis);
                if (b.mustWait(nowNanos)) {
                    wait = true;
                    nextRetry = Math.min(nextRetry, b.retryAtNanos());
                }
            }
            if (wait) {
                continue;
            }
            int[] idx = new int[w.buckets.length];
            long[] need = new long[w.buckets.length];
            long[] extra = new long[w.buckets.length];
            boolean any = false;
            boolean clash = false;
            for (int j = 0; j < w.buckets.length; j++) {
                SharedBucket b = w.buckets[j];
                long have = avail.computeIfAbsent(b, x -> Math.max(0, x.stock()));
                need[j] = Math.max(0, w.amounts[j] - have);
                avail.put(b, Math.max(0, have - w.amounts[j]));
                any |= need[j] > 0;
                Integer at = entryOf.get(b);
                if (at == null) {
                    if (keys.contains(b.key())) {
                        clash = true;
                        break;
                    }
                    keys.add(b.key());
                    at = r.add(b.entryAsIs(nowMillis));
                    entryOf.put(b, at);
                    p.entryBuckets.add(b);
                }
                idx[j] = at;
                extra[j] = b.chunk();
            }
            if (clash || !any) {
                continue; // the stock here covers it: the dispatch after this pass admits it
            }
            r.add(new SyncRequest.Group(idx, need, extra));
            p.groupOwners.add(w);
            w.sent();
            groups++;
        }
        nextRetryNanos = nextRetry;
        if (r.isHeartbeatOnly() && !heartbeat) {
            return null;
        }
        return p;
    }

    private void apply(Pass p, SyncReply reply, long nowNanos, long nowMillis) {
        fallback.heard(reply.liveInstances());
        if (p.probe) {
            if (fallback.recover(tracked, nowNanos, nowMillis)) {
                signalUrgent();
            }
            return;
        }
        List<SyncRequest.Entry> entries = p.request.entries();
        for (int i = 0; i < entries.size(); i++) {
            p.entryBuckets.get(i).synced(entries.get(i), reply.room(i));
        }
        List<SyncRequest.Group> groups = p.request.groups();
        for (int g = 0; g < groups.size(); g++) {
            SyncRequest.Group group = groups.get(g);
            Object owner = p.groupOwners.get(g);
            long[] got = reply.grants(g);
            long retryAt = nowNanos + Math.max(1, reply.waitMillis(g)) * 1_000_000L;
            if (got == null) {
                refusals.incrementAndGet();
                Wants.Want w = (Wants.Want) owner;
                wants.refused(w); // the call asks again when it is offered its turn after retryAt
                for (int j = 0; j < group.entries.length; j++) {
                    if (group.need[j] > 0) {
                        w.buckets[j].retryAt(retryAt);
                    }
                }
                continue;
            }
            grants.incrementAndGet();
            long total = 0;
            for (int j = 0; j < group.entries.length; j++) {
                SyncRequest.Entry e = entries.get(group.entries[j]);
                SharedBucket b = p.entryBuckets.get(group.entries[j]);
                total += got[j];
                b.credit(got[j], e.windowId, nowNanos, nowMillis);
            }
            if (owner instanceof Wants.Want) {
                ((Wants.Want) owner).granted(group.need, got);
            } else if (total == 0) {
                ((SharedBucket) owner).retryAt(retryAt); // the fleet has nothing to lease now
            }
        }
    }

    private void failed(Throwable failure, long nowNanos) {
        lastError = String.valueOf(failure);
        if (fallback.enter(lastError, nowNanos)) {
            wants.forgetAll();
            nextRetryNanos = Long.MAX_VALUE;
        }
    }

    // ------------------------------------------------------------------ status and shutdown

    @Override
    public StoreStatus status() {
        boolean f = fallback.active();
        return new StoreStatus(backend.describe(), f ? "fallback (capacity/" + fallback.instances() + ")" : "shared", f,
                fallback.instances(), backend.calls(), fallback.fallbacks(), fallback.recoveries(), grants.get(),
                refusals.get(), leaseChunk, lastError);
    }

    private void registerMBean() {
        try {
            ObjectName name = new ObjectName("dev.sluice:type=Store");
            if (!ManagementFactory.getPlatformMBeanServer().isRegistered(name)) {
                ManagementFactory.getPlatformMBeanServer().registerMBean(new StoreBean(this), name);
                mbeanName = name;
            }
        } catch (Exception | LinkageError ignored) {
            // JMX is a view: a store without it still works
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Host h = host;
        if (h != null && !fallback.active()) {
            try {
                SyncRequest r = h.withLock(this::collectGiveBack);
                if (!r.isHeartbeatOnly()) {
                    backend.sync(r);
                }
            } catch (Throwable ignored) {
                // best effort: unused leases lapse with time, holdings with the heartbeat
            }
        }
        if (mbeanName != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(mbeanName);
            } catch (Exception ignored) {
                // already gone
            }
        }
        backend.close();
    }

    /** Every unused lease, and every concurrency holding: this JVM stops admitting. */
    private SyncRequest collectGiveBack(long nowNanos, long nowMillis) {
        SyncRequest r = new SyncRequest(instanceId, 1);
        Set<String> keys = new HashSet<>();
        for (SharedBucket b : tracked) {
            if (b.inFallback() || !keys.add(b.key())) {
                continue;
            }
            r.add(b.giveBackAll(nowMillis));
        }
        return r;
    }

    @Override
    public String toString() {
        return backend.describe();
    }
}
