package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;

/** What one permit took from one bucket, so settlement can refund or debit exactly that bucket. */
final class Charge {

    final Bucket bucket;
    final long amount;
    final long windowId;
    /** The guaranteed tenant's index (-1 for none) and what came from its reserve. */
    final int tenant;
    final long fromReserve;

    Charge(Bucket bucket, long amount, long windowId, int tenant, long fromReserve) {
        this.bucket = bucket;
        this.amount = amount;
        this.windowId = windowId;
        this.tenant = tenant;
        this.fromReserve = fromReserve;
    }

    /** Settles this charge with the actual use. */
    void settle(long actual, long nowNanos, long nowMillis) {
        bucket.settle(amount, actual, windowId, tenant, fromReserve, nowNanos, nowMillis);
    }

    Dimension dimension() {
        return bucket.limit().dimension();
    }

    boolean mirrorsProvider() {
        return bucket.limit().mirrorsProvider();
    }
}
