package dev.sluice.core.quota;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;

/** Buckets as the governor makes them, on a fake clock, for the quota package's tests. */
final class QuotaFixtures {

    private QuotaFixtures() {}

    /** The bucket of a configured, organization-wide limit. */
    static Bucket bucketOf(LimitSpec spec, FakeClock clock) {
        return bucketOf(spec, clock, Guarantees.none());
    }

    /** The bucket of a configured, organization-wide limit whose guaranteed tenants hold reserves in it. */
    static Bucket bucketOf(LimitSpec spec, FakeClock clock, Guarantees guarantees) {
        return bucketOf(spec, clock, guarantees, BucketPlacement.LOCAL);
    }

    /** The bucket of a configured, organization-wide limit, where {@code placement} puts it (a store, say). */
    static Bucket bucketOf(LimitSpec spec, FakeClock clock, BucketPlacement placement) {
        return bucketOf(spec, clock, Guarantees.none(), placement);
    }

    private static Bucket bucketOf(LimitSpec spec, FakeClock clock, Guarantees guarantees, BucketPlacement placement) {
        return Limit.of(
                        spec,
                        clock::nanoTime,
                        clock.nanoTime(),
                        clock.epochMillis(),
                        Duration.ofMinutes(1),
                        guarantees,
                        placement)
                .buckets()
                .iterator()
                .next();
    }

    /** A token bucket of {@code capacity} per {@code window}, configured and organization-wide. */
    static Bucket tokenBucket(long capacity, Duration window, FakeClock clock) {
        return bucketOf(LimitSpec.perWindow("own", Dimension.TOTAL_TOKENS, capacity, window), clock);
    }

    /**
     * A budget learned from a provider's headers, as a provider scope makes it: a token bucket
     * mirroring the provider, {@code burst} 0 for the whole capacity.
     */
    static Bucket learnedBucket(long capacity, Duration window, long burst, FakeClock clock) {
        LimitSpec spec = LimitSpec.builder("openai/k_1/gpt:tokens", Dimension.TOTAL_TOKENS, capacity)
                .window(window)
                .burst(burst)
                .mirrorsProvider(true)
                .source(LimitSpec.Source.LEARNED)
                .build();
        return Limit.forScope(spec, "openai/k_1/gpt", clock.nanoTime(), clock.epochMillis(), Guarantees.none())
                .buckets()
                .iterator()
                .next();
    }
}
