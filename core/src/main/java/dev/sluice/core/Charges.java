package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;

/**
 * What a call charges: each bucket on its path, the provider in each dimension, its scope's learned
 * buckets, and how much of a guaranteed tenant's call its reserves did not cover. Pure functions of
 * the demand and the path, for the governor's admissions.
 */
final class Charges {

    private Charges() {}

    /** What a demand charges a bucket: in its dimension, counted as its owner counts (see {@link Demand#chargeIn}). */
    static long amountFor(Bucket b, Demand demand) {
        Limit l = b.limit();
        return demand.chargeIn(l.dimension(), l.mirrorsProvider());
    }

    /** What a call charges a provider in each dimension, by {@link Dimension#ordinal()}. */
    static long[] providerCharges(Demand demand) {
        Dimension[] dimensions = Dimension.values();
        long[] charges = new long[dimensions.length];
        for (Dimension d : dimensions) {
            charges[d.ordinal()] = demand.chargeIn(d, true);
        }
        return charges;
    }

    /** What a call charged each of its scope's learned buckets, from the amounts of its whole path. */
    static long[] learnedAmounts(Bucket[] learned, Bucket[] path, long[] amounts) {
        long[] of = new long[learned.length];
        for (int j = 0; j < learned.length; j++) {
            for (int i = path.length - 1; i >= 0; i--) {
                if (path[i] == learned[j]) {
                    of[j] = amounts[i];
                    break;
                }
            }
        }
        return of;
    }

    /**
     * The part of a guaranteed tenant's call that its reserves did not cover on the shared token
     * buckets it went through (the tightest of them).
     */
    static long borrowed(Demand demand, Bucket[] buckets, long[] amounts, long[] fromReserve) {
        double covered = 1.0;
        boolean shared = false;
        for (int i = 0; i < buckets.length; i++) {
            Dimension d = buckets[i].limit().dimension();
            if (amounts[i] > 0
                    && buckets[i].holdsReserves()
                    && (d == Dimension.TOTAL_TOKENS || d == Dimension.INPUT_TOKENS || d == Dimension.OUTPUT_TOKENS)) {
                shared = true;
                covered = Math.min(covered, (double) fromReserve[i] / amounts[i]);
            }
        }
        return shared ? Math.round(demand.totalTokens() * (1 - covered)) : 0;
    }
}
