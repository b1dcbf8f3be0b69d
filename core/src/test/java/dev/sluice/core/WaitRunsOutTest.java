package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.OverloadAction;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.schedule.TrafficClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The built-in {@code default} class lets a call through when its wait runs out, so adding Sluice
 * never fails a call the SDK would have completed; but when Sluice knows the provider has no room
 * the provider would refuse it too, and counts the refusal: the call is answered locally instead.
 */
class WaitRunsOutTest extends GovernorFixture {

    /** The {@code default} class as the agent configures it: a minute's wait, then {@code pass_through}. */
    private Governor governorWith(LimitSpec... limits) {
        GovernorBuilder b = Governor.builder()
                .clock(clock)
                .timer(timer)
                .trafficClass(
                        new TrafficClass("default", 5, Duration.ofSeconds(60), 10_000, OverloadAction.PASS_THROUGH));
        for (LimitSpec l : limits) {
            b.limit(l);
        }
        governor = b.build();
        return governor;
    }

    private static CallContext call(String tenant) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant(tenant)
                .apiKeyId("k_abc123")
                .build();
    }

    /** Five callers of the default class, each willing to wait 2 s, for a limit of one call a second. */
    private List<CompletableFuture<Admission>> fiveCallersWaiting2s() {
        List<CompletableFuture<Admission>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(governor.admitAsync(
                    call("t" + i),
                    Demand.oneRequest(),
                    clock.nanoTime() + Duration.ofSeconds(2).toNanos()));
        }
        timer.advance(Duration.ofSeconds(3));
        assertThat(calls).allMatch(CompletableFuture::isDone);
        return calls;
    }

    private static long count(List<CompletableFuture<Admission>> calls, GatewayDecision decision) {
        return calls.stream()
                .map(CompletableFuture::join)
                .filter(a -> decision == null
                        ? a.isAdmitted()
                        : !a.isAdmitted() && a.rejection().decision() == decision)
                .count();
    }

    @Test
    void aWaitThatRunsOutOnTheProvidersLimitIsAnsweredLocallyNotSent() {
        governorWith();
        CallContext first = call("t");
        governor.tryAdmit(first, Demand.oneRequest()).permit().settle(Usage.NONE);
        governor.learner()
                .learn(new ProviderAnswer(first, List.of(new LearnedBudget("requests", REQUESTS, 60, 0, 60_000))));

        List<CompletableFuture<Admission>> calls = fiveCallersWaiting2s();

        long admitted = count(calls, null);
        assertThat(admitted).as("admitted within the limit's refill").isBetween(1L, 2L);
        assertThat(count(calls, GatewayDecision.QUEUE_DEADLINE_EXCEEDED)).isEqualTo(5 - admitted);
        assertThat(governor.stats().trafficClass("default").passedThrough()).isZero();
    }

    @Test
    void aWaitThatRunsOutOnALimitOfTheServicesOwnStillPassesThrough() {
        governorWith(LimitSpec.builder("service", REQUESTS, 60)
                .window(Duration.ofMinutes(1))
                .level(ScopeLevel.ORGANIZATION)
                .build());
        for (int i = 0; i < 60; i++) {
            governor.tryAdmit(call("t"), Demand.oneRequest()).permit().settle(Usage.NONE);
        }

        List<CompletableFuture<Admission>> calls = fiveCallersWaiting2s();

        assertThat(count(calls, null)).isEqualTo(5);
        assertThat(governor.stats().trafficClass("default").passedThrough()).isBetween(3L, 4L);
    }
}
