package dev.sluice.core.quota;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;

/**
 * Whether a burst may be set on a limit, said the way config says it: one rule for the MBeans, a
 * reload and code, so each refuses the same values with the same words.
 */
public final class BurstSetting {
    private BurstSetting() {}

    /** Whether a limit of this spec has a burst at all: only token buckets do, not windows or concurrency. */
    public static boolean hasBurst(LimitSpec spec) {
        return spec.dimension() != Dimension.CONCURRENCY && spec.algorithm() == Algorithm.TOKEN_BUCKET;
    }

    /** Why {@code burst} cannot be set on {@code limit} (0 is "the capacity"), or null when it can. */
    public static String refusal(Limit limit, long burst) {
        LimitSpec spec = limit.spec();
        if (!hasBurst(spec)) {
            return "limit " + limit.id() + " is a "
                    + (spec.dimension() == Dimension.CONCURRENCY
                            ? "concurrency"
                            : spec.algorithm().configName())
                    + " limit and has no burst; only token buckets have one";
        }
        if (spec.source() == LimitSpec.Source.LEARNED) {
            return "limit " + limit.id() + " was learned from the provider's headers and follows them; set the"
                    + " burst of a configured limit mirroring it";
        }
        if (spec.source() == LimitSpec.Source.RAMP) {
            return "limit " + limit.id() + " is set by its provider's ramp; tune the Ramp";
        }
        if (burst < 0) {
            return "burst must be >= 0 (0: the capacity), was " + burst;
        }
        if (burst > limit.capacity()) {
            return "burst must be at most the capacity, " + limit.capacity() + ", was " + burst;
        }
        return null;
    }
}
