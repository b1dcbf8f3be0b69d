package dev.sluice.core.store;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This JVM's side of the sync protocol: turns what the shared buckets and the waiting calls have
 * for the shared state into one {@link SyncRequest} (stock to give back, debts, the provider's
 * lower figures, concurrency holdings, leases to top up, the exact needs of waiting calls, each
 * all-or-none), and applies the {@link SyncReply} to them: room left, grants to stock and
 * earmarks, refusals to retry times. One entry per key in a pass; a pass that has nothing to say
 * and no heartbeat due is not sent.
 *
 * <p>Guarded by the governor's lock: the store's thread builds a request and applies its answer
 * under it, and talks to the backend without it.
 */
final class SyncProtocol {

    /** Most waiting calls' reservations sent in one round trip. */
    private static final int MAX_GROUPS_PER_PASS = 256;

    private final String instanceId;
    private final long aliveMillis;
    private final long idleNanos;
    private final Fallback fallback;
    private final Wants wants;
    private final StoreThread thread;

    /** The buckets that have, or lately had, something for the store. */
    private final Set<SharedBucket> tracked = new LinkedHashSet<>();

    // counted under the lock; read by status readers
    private final AtomicLong grants = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();

    SyncProtocol(String instanceId, SharedStore.Timing timing, Fallback fallback, Wants wants, StoreThread thread) {
        this.instanceId = instanceId;
        this.aliveMillis = timing.aliveMillis;
        this.idleNanos = timing.idleNanos;
        this.fallback = fallback;
        this.wants = wants;
        this.thread = thread;
    }

    /** The next passes look at {@code b} until it holds nothing and is idle. */
    void track(SharedBucket b) {
        if (b.startTracking()) {
            tracked.add(b);
        }
    }

    /** Grant groups the backend granted. */
    long grants() {
        return grants.get();
    }

    /** Waiting calls' reservations the backend refused. */
    long refusals() {
        return refusals.get();
    }

    /** What one pass sends, and what to do with each part of the answer. */
    static final class Pass {
        final SyncRequest request;
        /** Sent in a fallback: an answer means the backend is back. */
        final boolean probe;
        /** Per entry: the bucket it stands for. */
        private final List<SharedBucket> entryBuckets = new ArrayList<>();
        /** Per group: the Want it serves, or the bucket it tops up. */
        private final List<Object> groupOwners = new ArrayList<>();

        private Pass(SyncRequest request, boolean probe) {
            this.request = request;
            this.probe = probe;
        }
    }

    /**
     * What this pass sends, or null when there is nothing to send and no heartbeat is due. In a
     * fallback only a heartbeat goes, as a probe.
     */
    Pass collect(long nowNanos, long nowMillis, boolean heartbeat) {
        SyncRequest r = new SyncRequest(instanceId, aliveMillis);
        if (fallback.active()) {
            return heartbeat ? new Pass(r, true) : null;
        }
        Pass p = new Pass(r, false);
        Map<SharedBucket, Integer> entryOf = new IdentityHashMap<>();
        Set<String> keys = new HashSet<>();
        for (Iterator<SharedBucket> it = tracked.iterator(); it.hasNext(); ) {
            SharedBucket b = it.next();
            b.follow(nowNanos, nowMillis);
            long window = b.windowAt(nowMillis);
            boolean active = b.activeAt(nowNanos, idleNanos);
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
                thread.moreToSend(); // the rest go in the next pass
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
        thread.retryAt(nextRetry);
        if (r.isHeartbeatOnly() && !heartbeat) {
            return null;
        }
        return p;
    }

    /** Applies the backend's answer to the buckets and waiting calls the pass spoke for. */
    void apply(Pass p, SyncReply reply, long nowNanos, long nowMillis) {
        fallback.heard(reply.liveInstances());
        if (p.probe) {
            if (fallback.recover(tracked, nowNanos, nowMillis)) {
                thread.wakeNow();
            }
            return;
        }
        List<SyncRequest.Entry> entries = p.request.entries();
        for (int i = 0; i < entries.size(); i++) {
            p.entryBuckets.get(i).synced(entries.get(i), reply.room(i), nowNanos);
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
                        w.buckets[j].retryAt(retryAt, nowNanos);
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
                ((SharedBucket) owner).retryAt(retryAt, nowNanos); // the fleet has nothing to lease now
            }
        }
    }

    /** Every unused lease, and every concurrency holding: this JVM stops admitting. */
    SyncRequest giveBackAll(long nowNanos, long nowMillis) {
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
}
