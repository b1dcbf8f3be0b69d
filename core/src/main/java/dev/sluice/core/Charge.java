package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;

/** What one permit took from one bucket, so settlement can refund or debit exactly that bucket. */
final class Charge {

    final Bucket bucket;
    final long amount;
    final long windowId;

    Charge(Bucket bucket, long amount, long windowId) {
        this.bucket = bucket;
        this.amount = amount;
        this.windowId = windowId;
    }

    Dimension dimension() {
        return bucket.limit().dimension();
    }

    boolean mirrorsProvider() {
        return bucket.limit().mirrorsProvider();
    }
}
