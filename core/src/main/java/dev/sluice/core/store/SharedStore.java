package dev.sluice.core.store;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store whose shared buckets live in a {@link FleetBackend}: it places {@link SharedBucket}s for
 * the limits a fleet shares and keeps them supplied through its parts, each guarded by the
 * governor's lock:
 *
 * <ul>
 *   <li>{@link StoreThread}, the one daemon thread, {@code sluice-store}, that makes a pass when
 *       there is work and every heartbeat: collects under the lock, makes one round trip to the
 *       backend without it, applies the answer under it;
 *   <li>{@link SyncProtocol}, what a pass sends (stock to give back, debts, the provider's lower
 *       figures, concurrency holdings, leases to top up, waiting calls' needs) and how the answer
 *       changes the buckets;
 *   <li>{@link Wants}, the calls waiting in their queues for shared room only;
 *   <li>{@link Fallback}, local limits of capacity / N while the backend is unreachable, and the
 *       switch back when it answers a probe.
 * </ul>
 *
 * <p>Its JMX view, {@code dev.sluice:type=Store} ({@link dev.sluice.core.jmx.StoreBean}), is
 * registered with the other beans ({@code SluiceMBeans}), when and if they are.
 */
final class SharedStore implements QuotaStore {

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
    private final String instanceId;
    private final AtomicLong holders = new AtomicLong();

    private final Fallback fallback;
    private final Wants wants = new Wants();
    private final StoreThread thread;
    private final SyncProtocol protocol;

    private volatile Host host;

    SharedStore(FleetBackend backend, int instances, double leaseChunk, Timing timing) {
        this.backend = backend;
        this.leaseChunk = leaseChunk;
        this.instanceId = "i" + ProcessHandle.current().pid() + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt() | 0x10000000);
        this.fallback = new Fallback(backend, instances);
        this.thread = new StoreThread(backend, timing, fallback, wants);
        this.protocol = new SyncProtocol(instanceId, timing, fallback, wants, thread);
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

    // ------------------------------------------------------------------ for its buckets (lock held)

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
        protocol.track(b);
        if (now) {
            thread.wakeNow();
        } else {
            thread.wakeSoon();
        }
    }

    // ------------------------------------------------------------------ waiting calls (lock held)

    @Override
    public void want(Object waiter, Bucket[] buckets, long[] amounts) {
        if (thread.stopped() || fallback.active()) {
            return;
        }
        if (wants.add(waiter, buckets, amounts)) {
            thread.wakeNow();
        }
    }

    @Override
    public void forget(Object waiter) {
        wants.forget(waiter);
    }

    // ------------------------------------------------------------------ start, status and shutdown

    @Override
    public void attach(Host governor) {
        if (this.host != null) {
            throw new IllegalStateException("a store serves one governor");
        }
        this.host = governor;
        thread.start(governor, protocol);
    }

    @Override
    public StoreStatus status() {
        boolean f = fallback.active();
        return new StoreStatus(
                backend.describe(),
                f ? "fallback (capacity/" + fallback.instances() + ")" : "shared",
                f,
                fallback.instances(),
                backend.calls(),
                fallback.fallbacks(),
                fallback.recoveries(),
                protocol.grants(),
                protocol.refusals(),
                leaseChunk,
                thread.lastError());
    }

    @Override
    public void close() {
        if (!thread.stop()) {
            return;
        }
        Host h = host;
        if (h != null && !fallback.active()) {
            try {
                SyncRequest r = h.withLock(protocol::giveBackAll);
                if (!r.isHeartbeatOnly()) {
                    backend.sync(r);
                }
            } catch (Throwable ignored) {
                // best effort: unused leases lapse with time, holdings with the heartbeat
            }
        }
        backend.close();
    }

    @Override
    public String toString() {
        return backend.describe();
    }
}
