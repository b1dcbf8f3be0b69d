package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.CallContext;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BucketPlacementTest {

    private final FakeClock clock = new FakeClock();

    private static final LimitSpec PER_TENANT = LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, 1_000)
            .window(Duration.ofMinutes(1))
            .level(ScopeLevel.TENANT)
            .build();

    private Limit limitPlacedBy(BucketPlacement placement) {
        return Limit.of(
                PER_TENANT,
                clock::nanoTime,
                clock.nanoTime(),
                clock.epochMillis(),
                Duration.ofMinutes(1),
                Guarantees.none(),
                placement);
    }

    private static CallContext call(String tenant) {
        return CallContext.builder("openai").tenant(tenant).build();
    }

    @Test
    void theLocalPlacementKeepsEveryBucketInThisJvm() {
        Limit l = limitPlacedBy(BucketPlacement.LOCAL);
        Bucket a = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        assertThat(a).isInstanceOf(TokenBucket.class);
        assertThat(a.isShared()).isFalse();
    }

    @Test
    void aLimitAsksItsPlacementOnceForEachNewBucketAndCountsInWhatItReturns() {
        List<String> asked = new ArrayList<>();
        Bucket[] made = new Bucket[1];
        BucketPlacement placement = (limit, scopeValue, local, nowNanos, nowMillis) -> {
            asked.add(scopeValue);
            made[0] = new FaultyBucket(local, new AtomicInteger()); // another bucket than the local one
            return made[0];
        };
        Limit l = limitPlacedBy(placement);
        Bucket a = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        assertThat(a).isSameAs(made[0]);
        l.bucketFor(call("b"), clock.nanoTime(), clock.epochMillis());
        assertThat(asked).containsExactly("a", "b");
    }
}
