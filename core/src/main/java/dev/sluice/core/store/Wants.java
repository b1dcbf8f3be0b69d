package dev.sluice.core.store;

import dev.sluice.core.quota.Bucket;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The calls waiting in their queues for shared room only, and what each needs of its shared
 * buckets: the store asks the backend for each need all-or-none, once, and keeps what was granted
 * for the call (earmarked) until it leaves its queue. Calls are kept in the order they asked.
 *
 * <p>Guarded by the governor's lock.
 */
final class Wants {

    /** A waiting call's need of shared buckets, asked of the backend all-or-none. */
    static final class Want {
        final Object waiter;
        final SharedBucket[] buckets;
        final long[] amounts;
        private long[] earmarks;
        private boolean inFlight;
        private boolean granted;
        private boolean forgotten;

        private Want(Object waiter, SharedBucket[] buckets, long[] amounts) {
            this.waiter = waiter;
            this.buckets = buckets;
            this.amounts = amounts;
        }

        /** Whether it is yet to be asked: not in a round trip now, not granted. */
        boolean unasked() {
            return !inFlight && !granted;
        }

        /** It goes in the round trip about to start. */
        void sent() {
            inFlight = true;
        }

        /**
         * The backend granted {@code got} for {@code need}: kept for the call in its buckets, unless
         * the call left its queue meanwhile.
         */
        void granted(long[] need, long[] got) {
            inFlight = false;
            if (forgotten) {
                return;
            }
            granted = true;
            earmarks = new long[buckets.length];
            for (int j = 0; j < buckets.length; j++) {
                earmarks[j] = Math.min(need[j], got[j]);
                buckets[j].earmark(earmarks[j]);
            }
        }
    }

    private final Map<Object, Want> byWaiter = new LinkedHashMap<>();

    /**
     * Records what {@code waiter} needs of its shared buckets; false when there is nothing new to
     * ask (asked already, or no shared need).
     */
    boolean add(Object waiter, Bucket[] buckets, long[] amounts) {
        Want existing = byWaiter.get(waiter);
        if (existing != null) {
            if (existing.inFlight || !existing.granted) {
                return false; // asked already
            }
            // granted, yet short again: what was granted went to a call ahead of it; ask anew
            forget(waiter);
        }
        int n = 0;
        for (int i = 0; i < buckets.length; i++) {
            if (buckets[i].isShared() && amounts[i] > 0) {
                n++;
            }
        }
        if (n == 0) {
            return false;
        }
        SharedBucket[] shared = new SharedBucket[n];
        long[] need = new long[n];
        for (int i = 0, j = 0; i < buckets.length; i++) {
            if (buckets[i].isShared() && amounts[i] > 0) {
                shared[j] = (SharedBucket) buckets[i];
                need[j++] = amounts[i];
            }
        }
        byWaiter.put(waiter, new Want(waiter, shared, need));
        return true;
    }

    /** The call left its queue: what was granted for it and not taken is free again. */
    void forget(Object waiter) {
        Want w = byWaiter.remove(waiter);
        if (w == null) {
            return;
        }
        w.forgotten = true;
        if (w.earmarks != null) {
            for (int j = 0; j < w.buckets.length; j++) {
                w.buckets[j].releaseEarmark(w.earmarks[j]);
            }
        }
    }

    /** The store fell back: nothing is asked of it any more (the buckets dropped their stock). */
    void forgetAll() {
        for (Want w : byWaiter.values()) {
            w.forgotten = true;
        }
        byWaiter.clear();
    }

    /** The backend refused: the call asks again when it is offered its turn after the retry time. */
    void refused(Want w) {
        w.inFlight = false;
        byWaiter.remove(w.waiter);
    }

    /** Every want, in the order the calls asked. */
    Collection<Want> all() {
        return Collections.unmodifiableCollection(byWaiter.values());
    }
}
