package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.CallContext;
import dev.sluice.core.FakeClock;
import dev.sluice.core.GatewayDecision;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

class LimitTest {

    private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:15:30Z"));

    private Limit limitOf(LimitSpec spec) {
        return Limit.of(spec, clock::nanoTime, clock.nanoTime(), clock.epochMillis(), Duration.ofMinutes(1));
    }

    private static LimitSpec.Builder tokensPerMinute(long capacity) {
        return LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, capacity).window(Duration.ofMinutes(1));
    }

    private static CallContext call(String tenant) {
        return CallContext.builder("openai").model("gpt-4o").tenant(tenant).build();
    }

    private static LimitSpec learned(long capacity, long burst) {
        return tokensPerMinute(capacity)
                .burst(burst)
                .mirrorsProvider(true)
                .source(LimitSpec.Source.LEARNED)
                .build();
    }

    @Test
    void theBurstIsTheCapacityUnlessSetBelowIt() {
        assertThat(limitOf(tokensPerMinute(1_000).build()).burst()).isEqualTo(1_000);
        assertThat(limitOf(tokensPerMinute(1_000).burst(200).build()).burst()).isEqualTo(200);
        assertThat(limitOf(tokensPerMinute(1_000).burst(5_000).build()).burst()).isEqualTo(1_000);
    }

    @Test
    void aConfiguredLimitAsksACallForAllItTakes() {
        assertThat(limitOf(tokensPerMinute(1_000).burst(200).build()).roomNeededFor(5_000))
                .isEqualTo(5_000);
    }

    /** A learned figure paces and never locks out: a call larger than the burst waits for a full bucket. */
    @Test
    void aLearnedLimitAsksALargerCallOnlyForAFullBucket() {
        Limit l = Limit.forScope(learned(1_000, 200), "openai", 0, 0, Guarantees.none());
        assertThat(l.roomNeededFor(5_000)).isEqualTo(200);
        assertThat(l.roomNeededFor(150)).isEqualTo(150);
    }

    @Test
    void aCapacityTheProviderAnnouncedIsARuleForACallLargerThanIt() {
        Limit l = Limit.forScope(learned(1_000, 200), "openai", 0, 0, Guarantees.none());
        l.setCapacityAnnounced(true);
        assertThat(l.roomNeededFor(5_000)).isEqualTo(5_000);
        assertThat(l.roomNeededFor(800)).isEqualTo(200); // within the capacity, the burst still only paces
    }

    @Test
    void aNewCapacityAppliesToEveryBucketOfTheLimitAtOnce() {
        Limit l = limitOf(tokensPerMinute(1_000).level(ScopeLevel.TENANT).build());
        Bucket a = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        Bucket b = l.bucketFor(call("b"), clock.nanoTime(), clock.epochMillis());
        l.setCapacity(400, clock.nanoTime(), clock.epochMillis());
        assertThat(a.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(400);
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(400);
    }

    @Test
    void aNewBurstAppliesToEveryBucketOfTheLimitAtOnce() {
        Limit l = limitOf(tokensPerMinute(1_000).build());
        l.setBurst(300, clock.nanoTime(), clock.epochMillis());
        Bucket b = l.buckets().iterator().next();
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(300);
    }

    @Test
    void aCapacityOrBurstOutOfRangeIsRefusedNamingIt() {
        Limit l = limitOf(tokensPerMinute(1_000).build());
        assertThatThrownBy(() -> l.setCapacity(0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity must be > 0, was 0");
        assertThatThrownBy(() -> l.setBurst(-1, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("burst must be >= 0, was -1");
        assertThat(l.capacity()).isEqualTo(1_000);
    }

    @Test
    void aLimitAppliesOnlyToTheCallsOfItsProviderTenantAndModels() {
        Limit l = limitOf(tokensPerMinute(1_000)
                .provider("openai")
                .tenant("search")
                .models(List.of("gpt-4o*", "o3"))
                .build());
        assertThat(l.appliesTo(CallContext.builder("openai")
                        .model("gpt-4o-mini")
                        .tenant("search")
                        .build()))
                .isTrue();
        assertThat(l.appliesTo(CallContext.builder("openai")
                        .model("o3")
                        .tenant("search")
                        .build()))
                .isTrue();
        assertThat(l.appliesTo(CallContext.builder("openai")
                        .model("o3-mini")
                        .tenant("search")
                        .build()))
                .isFalse();
        assertThat(l.appliesTo(CallContext.builder("anthropic")
                        .model("gpt-4o")
                        .tenant("search")
                        .build()))
                .isFalse();
        assertThat(l.appliesTo(CallContext.builder("openai")
                        .model("gpt-4o")
                        .tenant("chat")
                        .build()))
                .isFalse();
        assertThat(l.appliesTo(CallContext.builder("openai").tenant("search").build()))
                .isFalse();
    }

    @Test
    void aPerTenantLimitCountsEachTenantApartAndNotACallWithoutOne() {
        Limit l = limitOf(tokensPerMinute(1_000).level(ScopeLevel.TENANT).build());
        Bucket a = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        assertThat(l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis()))
                .isSameAs(a);
        assertThat(l.bucketFor(call("b"), clock.nanoTime(), clock.epochMillis()))
                .isNotSameAs(a);
        assertThat(l.bucketFor(call(null), clock.nanoTime(), clock.epochMillis()))
                .isNull();
        assertThat(a.scopeValue()).isEqualTo("a");
    }

    @Test
    void aLimitAtAnotherLevelCountsByThatLevelsValue() {
        Limit perModel =
                limitOf(tokensPerMinute(1_000).level(ScopeLevel.MODEL_PROFILE).build());
        Limit perDeployment = limitOf(
                tokensPerMinute(1_000).level(ScopeLevel.PROVIDER_DEPLOYMENT).build());
        CallContext azure = CallContext.builder("azure")
                .model("gpt-4o")
                .deployment("eu-prod")
                .build();
        assertThat(perModel.bucketFor(azure, 0, 0).scopeValue()).isEqualTo("gpt-4o");
        assertThat(perDeployment.bucketFor(azure, 0, 0).scopeValue()).isEqualTo("eu-prod");
        // without a deployment, the model stands for it
        assertThat(perDeployment
                        .bucketFor(CallContext.builder("openai").model("gpt-4o").build(), 0, 0)
                        .scopeValue())
                .isEqualTo("gpt-4o");
    }

    @Test
    void anOrganizationWideLimitCountsEveryCallInOneBucket() {
        Limit l = limitOf(tokensPerMinute(1_000).build());
        assertThat(l.bucketFor(call("a"), 0, 0)).isSameAs(l.bucketFor(call(null), 0, 0));
        assertThat(l.buckets()).hasSize(1);
    }

    @Test
    void scopeNamesTellTheProviderAndTheValueCounted() {
        Limit perTenant = limitOf(tokensPerMinute(1_000)
                .provider("openai")
                .level(ScopeLevel.TENANT)
                .build());
        assertThat(perTenant.bucketFor(call("search"), 0, 0).scopeName()).isEqualTo("openai/tenant=search");
        assertThat(limitOf(tokensPerMinute(1_000).build())
                        .buckets()
                        .iterator()
                        .next()
                        .scopeName())
                .isEqualTo("sluice");
        assertThat(limitOf(tokensPerMinute(1_000).tenant("search").build())
                        .buckets()
                        .iterator()
                        .next()
                        .scopeName())
                .isEqualTo("sluice/tenant=search");
        assertThat(Limit.forScope(learned(1_000, 0), "openai/k_1/gpt", 0, 0, Guarantees.none())
                        .buckets()
                        .iterator()
                        .next()
                        .scopeName())
                .isEqualTo("openai/k_1/gpt");
    }

    @Test
    void aFixedScopeLimitHasOneBucketAndNoLevel() {
        assertThatThrownBy(() -> Limit.forScope(
                        tokensPerMinute(1_000).level(ScopeLevel.TENANT).build(), "x", 0, 0, Guarantees.none()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a fixed-scope limit has a single bucket");
    }

    @Test
    void whatItCountsAndItsAlgorithmChooseTheKindOfBucket() {
        assertThat(limitOf(LimitSpec.builder("c", Dimension.CONCURRENCY, 4).build())
                        .buckets())
                .singleElement()
                .isInstanceOf(ConcurrencyBucket.class);
        assertThat(limitOf(tokensPerMinute(10).build()).buckets())
                .singleElement()
                .isInstanceOf(TokenBucket.class);
        assertThat(limitOf(tokensPerMinute(10).algorithm(Algorithm.FIXED_WINDOW).build())
                        .buckets())
                .singleElement()
                .isInstanceOf(WindowBucket.class);
        assertThat(limitOf(tokensPerMinute(10)
                                .dailyReset(LocalTime.MIDNIGHT, ZoneId.of("UTC"))
                                .build())
                        .buckets()
                        .iterator()
                        .next()
                        .isWindowed())
                .isTrue();
    }

    @Test
    void aPerTenantLimitHoldsNoGuaranteedReserves() {
        Guarantees g = Guarantees.of(java.util.Map.of("search", 0.5));
        Limit perTenant = Limit.of(
                tokensPerMinute(1_000).level(ScopeLevel.TENANT).build(),
                clock::nanoTime,
                0,
                0,
                Duration.ofMinutes(1),
                g);
        Limit shared = Limit.of(tokensPerMinute(1_000).build(), clock::nanoTime, 0, 0, Duration.ofMinutes(1), g);
        assertThat(perTenant.bucketFor(call("chat"), 0, 0).holdsReserves()).isFalse();
        assertThat(shared.bucketFor(call("chat"), 0, 0).holdsReserves()).isTrue();
    }

    @Test
    void rejectionsAreCountedByDecision() {
        Limit l = limitOf(tokensPerMinute(1_000).build());
        l.countRejection(GatewayDecision.QUEUE_FULL);
        l.countRejection(GatewayDecision.QUEUE_FULL);
        assertThat(l.rejections(GatewayDecision.QUEUE_FULL)).isEqualTo(2);
        assertThat(l.rejections(GatewayDecision.NOT_ADMISSIBLE)).isZero();
    }

    @Test
    void anUnenforcedLimitSaysSoLive() {
        Limit l = limitOf(tokensPerMinute(1_000).enforced(false).build());
        assertThat(l.enforced()).isFalse();
        l.setEnforced(true);
        assertThat(l.enforced()).isTrue();
    }

    /** Buckets whose room lives in a shared store ask the limit about its windows. */
    @Test
    void theLimitAnswersWindowQuestionsOnItsOwnSchedule() {
        Limit mirror = limitOf(tokensPerMinute(100)
                .algorithm(Algorithm.FIXED_WINDOW)
                .mirrorsProvider(true)
                .build());
        long now = clock.epochMillis();
        assertThat(mirror.windowStartAt(now))
                .isEqualTo(Instant.parse("2026-11-29T10:15:00Z").toEpochMilli());
        assertThat(mirror.nextWindowStartAt(now))
                .isEqualTo(Instant.parse("2026-11-29T10:16:00Z").toEpochMilli());
        assertThat(mirror.windowClosingAt(now)).isFalse();
        assertThat(mirror.windowClosingAt(
                        Instant.parse("2026-11-29T10:15:59.600Z").toEpochMilli()))
                .isTrue();
        assertThat(mirror.windowMillis()).isEqualTo(60_000);
    }

    /** Evicting a bucket is indistinguishable from keeping it: it goes long after it is full again. */
    @Test
    void anIdleBucketIsEvictedOnlyAfterTwoWindowsAndTheLeaseAndAMinute() {
        // kept two windows, the lease and a minute: 4 minutes idle
        Limit l = limitOf(tokensPerMinute(1_000).level(ScopeLevel.TENANT).build());
        Bucket a = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofMinutes(4).minusSeconds(1));
        assertThat(l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis()))
                .isSameAs(a);
        clock.advance(Duration.ofMinutes(4).plusSeconds(1));
        Bucket again = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        assertThat(again).isNotSameAs(a);
        assertThat(a.isEvicted()).isTrue();
    }

    @Test
    void aBucketKeptAliveIsNotEvictedAsIdle() {
        Limit l = limitOf(tokensPerMinute(1_000).level(ScopeLevel.TENANT).build());
        Bucket a = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofMinutes(3));
            l.keepAlive(a);
        }
        assertThat(l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis()))
                .isSameAs(a);
    }

    @Test
    void aValueNamedDirectlyFindsTheSameBucketAsItsCalls() {
        Limit l = limitOf(tokensPerMinute(1_000).level(ScopeLevel.TENANT).build());
        Bucket a = l.bucketFor(call("a"), clock.nanoTime(), clock.epochMillis());
        assertThat(l.bucketForValue("a", clock.nanoTime(), clock.epochMillis())).isSameAs(a);
    }

    /** A mirror keeps back what calls in transit may take (a quarter second's refill), never more than half its burst. */
    @Test
    void aMirrorRefillsToItsBurstLessWhatCallsInTransitMayTake() {
        assertThat(limitOf(tokensPerMinute(6_000).build()).refillCeiling()).isEqualTo(6_000.0);
        assertThat(limitOf(tokensPerMinute(6_000).mirrorsProvider(true).build()).refillCeiling())
                .isCloseTo(5_975.0, within(1e-6));
        // a tenth of a second's window: a quarter second's refill is more than the burst
        assertThat(limitOf(LimitSpec.builder("rps", Dimension.REQUESTS, 10)
                                .window(Duration.ofMillis(100))
                                .mirrorsProvider(true)
                                .build())
                        .refillCeiling())
                .isEqualTo(5.0);
    }
}
