package dev.sluice.core.store;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.BucketPlacement;
import dev.sluice.core.quota.Limit;

/**
 * Where the buckets a fleet shares live. The governor keeps every bucket in memory and decides
 * under its one lock; a store decides which of them stand for a budget shared by several JVMs
 * (the provider's own limits, and limits marked {@code shared}) and keeps those supplied with room
 * leased from the shared state, off the governor's lock and off the admission path. Per-JVM
 * queues, fairness and retries stay local.
 *
 * <p>{@link #local()} is the default: nothing is shared. {@link #shared} keeps shared buckets in
 * a {@link FleetBackend} (Redis: {@code dev.sluice.core.store.redis.RedisBackend}).
 */
public interface QuotaStore extends BucketPlacement, AutoCloseable {

    /** Every bucket lives in this JVM. */
    static QuotaStore local() {
        return LocalStore.INSTANCE;
    }

    /**
     * A store whose shared buckets live in {@code backend}.
     *
     * @param instances fleet size for the fallback share capacity / N when the backend is
     *     unreachable; 0 to learn it from the instances' heartbeats
     * @param leaseChunk fraction of a shared bucket's capacity this JVM leases at once and admits
     *     from locally; 0 to ask the backend for exactly what each waiting call needs
     */
    static QuotaStore shared(FleetBackend backend, int instances, double leaseChunk) {
        return new SharedStore(backend, instances, leaseChunk, SharedStore.Timing.DEFAULT);
    }

    /** Binds the store to its governor; called once, when the governor is built. */
    void attach(Host host);

    /**
     * A waiting call is short only on shared buckets: ask the store for what it needs, off the
     * lock. Idempotent per call; the host dispatches again when room arrived or the store said
     * when to retry. Lock held.
     *
     * @param waiter the queued call (identity only)
     * @param buckets the call's buckets; only the {@linkplain Bucket#isShared() shared} ones count
     * @param amounts what the call takes from each bucket
     */
    void want(Object waiter, Bucket[] buckets, long[] amounts);

    /** The call left its queue (admitted, expired, cancelled): what was leased for it is free again. Lock held. */
    void forget(Object waiter);

    /** Whether any bucket is shared at all (cheap check on the dispatch path). */
    boolean sharesAny();

    /** What the store is doing now, for logs, JMX and tests. */
    StoreStatus status();

    /** Stops the store's thread and gives back what this JVM leased, best effort. */
    @Override
    void close();

    /** The governor as a store sees it. */
    interface Host {

        /**
         * Runs {@code action} under the governor's lock with every settlement applied, then lets
         * waiting calls take the room the action made.
         */
        <T> T withLock(Locked<T> action);

        /** Work done under the governor's lock, with one clock reading. */
        interface Locked<T> {
            T run(long nowNanos, long nowMillis);
        }
    }

    /** The local store: {@link #place} keeps every bucket local. */
    final class LocalStore implements QuotaStore {
        static final LocalStore INSTANCE = new LocalStore();

        private LocalStore() {}

        @Override
        public Bucket place(Limit limit, String scopeValue, Bucket local, long nowNanos, long nowMillis) {
            return local;
        }

        @Override
        public void attach(Host host) {
            // nothing to keep supplied
        }

        @Override
        public void want(Object waiter, Bucket[] buckets, long[] amounts) {
            // never called: no bucket is shared
        }

        @Override
        public void forget(Object waiter) {
            // nothing leased
        }

        @Override
        public boolean sharesAny() {
            return false;
        }

        @Override
        public StoreStatus status() {
            return StoreStatus.LOCAL;
        }

        @Override
        public void close() {
            // nothing held
        }

        @Override
        public String toString() {
            return "local";
        }
    }
}
