package dev.sluice.core;

import static dev.sluice.config.Dimension.CONCURRENCY;
import static dev.sluice.config.Dimension.INPUT_TOKENS;
import static dev.sluice.config.Dimension.OUTPUT_TOKENS;
import static dev.sluice.config.Dimension.REQUESTS;
import static dev.sluice.config.Dimension.TOTAL_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Mode;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.schedule.TrafficClass;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class GovernorTest extends GovernorFixture {

    private static LimitSpec perMinute(String id, dev.sluice.config.Dimension d, long capacity) {
        return LimitSpec.perWindow(id, d, capacity, Duration.ofMinutes(1));
    }

    private static CallContext call(String tenant) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant(tenant)
                .apiKeyId("k_abc123")
                .build();
    }

    private static Demand tokens(long in, long out) {
        return Demand.builder().inputTokens(in).outputTokens(out).build();
    }

    @Test
    void refundsWhatTheCallDidNotUse() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000));
        Permit permit = governor.tryAdmit(call("a"), tokens(0, 800)).permit();
        permit.settle(Usage.builder().outputTokens(200).build());
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(800);
    }

    @Test
    void debitsWhatTheCallUsedBeyondItsReservation() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000));
        Permit permit = governor.tryAdmit(call("a"), tokens(0, 100)).permit();
        permit.settle(Usage.builder().outputTokens(300).build());
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(700);
    }

    @Test
    void settlesExactlyOnce() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000));
        Permit permit = governor.tryAdmit(call("a"), tokens(0, 500)).permit();
        assertThat(permit.settle(Usage.builder().outputTokens(100).build())).isTrue();
        assertThat(permit.settle(Usage.builder().outputTokens(0).build())).isFalse();
        assertThat(permit.cancel()).isFalse();
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(900);
    }

    @Test
    void tokenBucketRefillsSmoothlyWithinTheWindow() {
        governor(perMinute("rpm", REQUESTS, 60));
        for (int i = 0; i < 60; i++) {
            assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                    .isTrue();
        }
        Admission refused = governor.tryAdmit(call("a"), Demand.oneRequest());
        assertThat(refused.isAdmitted()).isFalse();
        assertThat(refused.rejection().decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        assertThat(refused.rejection().limiter()).isEqualTo(REQUESTS);
        assertThat(refused.rejection().retryAfterMillis()).isEqualTo(1_000);
        clock.advance(Duration.ofSeconds(1));
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isFalse();
    }

    @Test
    void chargesEveryBucketOnThePathOrNone() {
        governor(
                perMinute("org", TOTAL_TOKENS, 10_000),
                LimitSpec.builder("tenant", TOTAL_TOKENS, 1_000)
                        .window(Duration.ofMinutes(1))
                        .level(ScopeLevel.TENANT)
                        .build());
        assertThat(governor.tryAdmit(call("a"), tokens(600, 300)).isAdmitted()).isTrue();
        Admission second = governor.tryAdmit(call("a"), tokens(100, 100));
        assertThat(second.isAdmitted()).isFalse();
        assertThat(second.rejection().scope()).isEqualTo("sluice/tenant=a");
        // the refusal charged nothing: the organization bucket only holds the first call
        assertThat(governor.controls()
                        .limit("org")
                        .buckets()
                        .iterator()
                        .next()
                        .room(clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(9_100);
        // another tenant has its own bucket, created on first use
        assertThat(governor.tryAdmit(call("b"), tokens(600, 300)).isAdmitted()).isTrue();
        assertThat(governor.controls().limit("tenant").buckets()).hasSize(2);
    }

    @Test
    void aDemandLargerThanAnyWindowIsNotAdmissibleAtOnce() {
        governor(perMinute("in", INPUT_TOKENS, 30_000));
        Admission a = governor.tryAdmit(call("a"), tokens(34_307, 0));
        assertThat(a.rejection().decision()).isEqualTo(GatewayDecision.NOT_ADMISSIBLE);
        assertThat(a.rejection().detail()).contains("needs 34307").contains("capacity of 30000");
        assertThat(a.rejection().retryAfterMillis()).isZero();
    }

    @Test
    void aCallerWaitsUntilRoomRefillsThenIsAdmitted() throws Exception {
        governor(perMinute("rpm", REQUESTS, 60));
        for (int i = 0; i < 60; i++) {
            governor.tryAdmit(call("a"), Demand.oneRequest());
        }
        CompletableFuture<Admission> waiting = governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        assertThat(waiting).isNotDone();
        assertThat(governor.controls().waiting()).isEqualTo(1);
        timer.advance(Duration.ofMillis(999));
        assertThat(waiting).isNotDone();
        timer.advance(Duration.ofMillis(2));
        assertThat(waiting).isDone();
        Admission a = waiting.get();
        assertThat(a.isAdmitted()).isTrue();
        assertThat(a.permit().waitedNanos()).isBetween(999_000_000L, 1_001_000_000L);
    }

    @Test
    void aCallThatCannotFitBeforeItsDeadlineIsToldAtOnce() {
        governor(perMinute("rpm", REQUESTS, 60));
        for (int i = 0; i < 60; i++) {
            governor.tryAdmit(call("a"), Demand.oneRequest());
        }
        CallContext interactive = CallContext.builder("openai")
                .tenant("a")
                .trafficClass("interactive")
                .build();
        CompletableFuture<Admission> f = governor.admitAsync(interactive, Demand.oneRequest(), 0);
        assertThat(f).isDone();
        Rejection r = f.join().rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        assertThat(r.retryAfterMillis()).isEqualTo(1_000);
        assertThat(r.toString()).contains("limiter=requests").contains("needs 1, 0 free, refills in 1.0 s");
    }

    @Test
    void aQueuedCallGetsQueueDeadlineExceededPromptly() {
        governor(LimitSpec.builder("conc", CONCURRENCY, 1).build());
        Permit holder = governor.tryAdmit(call("a"), Demand.oneRequest()).permit();
        CallContext interactive = CallContext.builder("openai")
                .tenant("a")
                .trafficClass("interactive")
                .build();
        CompletableFuture<Admission> f = governor.admitAsync(interactive, Demand.oneRequest(), 0);
        assertThat(f).isNotDone();
        timer.advance(Duration.ofMillis(299));
        assertThat(f).isNotDone();
        timer.advance(Duration.ofMillis(1));
        assertThat(f).isDone();
        Rejection r = f.join().rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.QUEUE_DEADLINE_EXCEEDED);
        assertThat(r.waitedMillis()).isEqualTo(300);
        assertThat(r.queueReason()).isEqualTo("deadline");
        assertThat(governor.controls().waiting()).isZero();
        holder.releaseConcurrency();
        holder.settle(Usage.NONE);
        assertThat(governor.controls().outstandingPermits()).isZero();
    }

    @Test
    void theCallersOwnDeadlineShortensTheClassWait() {
        governor(LimitSpec.builder("conc", CONCURRENCY, 1).build());
        governor.tryAdmit(call("a"), Demand.oneRequest());
        CompletableFuture<Admission> f =
                governor.admitAsync(call("a"), Demand.oneRequest(), clock.nanoTime() + 50_000_000L);
        timer.advance(Duration.ofMillis(50));
        assertThat(f).isDone();
        assertThat(f.join().rejection().decision()).isEqualTo(GatewayDecision.QUEUE_DEADLINE_EXCEEDED);
    }

    @Test
    void aFullQueueAnswersQueueFullAtOnce() {
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .limit(LimitSpec.builder("conc", CONCURRENCY, 1).build())
                .trafficClass(new TrafficClass(
                        "default", 50, Duration.ofSeconds(60), 2, dev.sluice.config.OverloadAction.REJECT))
                .build();
        governor.tryAdmit(call("a"), Demand.oneRequest());
        governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> third = governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        assertThat(third).isDone();
        assertThat(third.join().rejection().decision()).isEqualTo(GatewayDecision.QUEUE_FULL);
    }

    @Test
    void releasingAConcurrencySlotAdmitsTheNextWaiter() {
        governor(LimitSpec.builder("conc", CONCURRENCY, 1).build());
        Permit first = governor.tryAdmit(call("a"), Demand.oneRequest()).permit();
        CompletableFuture<Admission> second = governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        assertThat(second).isNotDone();
        first.settle(Usage.NONE); // headers came back: tokens settle, the stream still holds the slot
        assertThat(second).isNotDone();
        first.releaseConcurrency();
        assertThat(second).isDone();
        assertThat(second.join().isAdmitted()).isTrue();
    }

    @Test
    void cancellingAWaitingFutureLeavesTheQueueAndLeaksNothing() {
        governor(LimitSpec.builder("conc", CONCURRENCY, 1).build());
        Permit first = governor.tryAdmit(call("a"), Demand.oneRequest()).permit();
        CompletableFuture<Admission> second = governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        second.cancel(false);
        assertThat(governor.controls().waiting()).isZero();
        first.cancel();
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
    }

    @Test
    void anAbandonedStreamIsReleasedWhenItsLeaseExpires() {
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .leaseTimeout(Duration.ofSeconds(30))
                .limit(LimitSpec.builder("conc", CONCURRENCY, 2).build())
                .limit(perMinute("out", OUTPUT_TOKENS, 1_000))
                .build();
        governor.tryAdmit(call("a"), tokens(0, 400)); // never settled, never released
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
        timer.advance(Duration.ofSeconds(30));
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(2);
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.stats().leaseExpired()).isEqualTo(1);
    }

    @Test
    void mirrorBucketsChargeWhatTheProviderChargesAndKeepIt() {
        governor(LimitSpec.builder("tpm", TOTAL_TOKENS, 10_000)
                .window(Duration.ofMinutes(1))
                .provider("openai")
                .mirrorsProvider(true)
                .build());
        // OpenAI counts max(max_tokens, prompt) at admission and keeps it
        Demand d = Demand.builder()
                .inputTokens(100)
                .outputTokens(50)
                .providerCharge(TOTAL_TOKENS, 2_000)
                .build();
        Permit p = governor.tryAdmit(call("a"), d).permit();
        // 10 000 less the transit allowance a mirror keeps back (250 ms of refill, 41 tokens), less 2 000
        assertThat(governor.controls().available(TOTAL_TOKENS)).isEqualTo(7_958);
        p.settle(Usage.builder().inputTokens(100).outputTokens(20).build());
        assertThat(governor.controls().available(TOTAL_TOKENS)).isEqualTo(7_958);
    }

    @Test
    void mirrorBucketsOfAProviderThatTruesUpSettleToActualUsage() {
        governor(LimitSpec.builder("otpm", OUTPUT_TOKENS, 10_000)
                .window(Duration.ofMinutes(1))
                .provider("anthropic")
                .mirrorsProvider(true)
                .build());
        Demand d = Demand.builder()
                .outputTokens(4_096)
                .providerTruesUp(OUTPUT_TOKENS)
                .build();
        CallContext c = CallContext.builder("anthropic").tenant("a").build();
        Permit p = governor.tryAdmit(c, d).permit();
        p.settle(Usage.builder().outputTokens(96).build());
        // 10 000 less the transit allowance a mirror keeps back (41 tokens), less the 96 used
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(9_862);
    }

    @Test
    void aRefusedAttemptKeepsItsRequestWhereTheProviderCountsIt() {
        governor(perMinute("rpm", REQUESTS, 10), perMinute("tpm", TOTAL_TOKENS, 1_000));
        Permit p = governor.tryAdmit(call("a"), tokens(100, 100)).permit();
        p.settleRefused(true);
        assertThat(governor.controls().available(REQUESTS)).isEqualTo(9);
        assertThat(governor.controls().available(TOTAL_TOKENS)).isEqualTo(1_000);
    }

    @Test
    void learnedLimitsPaceCallsAndLowerRemainingWins() {
        governor();
        CallContext c = call("a");
        // 3 left, less the quarter second of transit allowance the mirror keeps back: room for 2
        governor.learner()
                .learn(new ProviderAnswer(c, List.of(new LearnedBudget("requests", REQUESTS, 60, 3, 60_000))));
        assertThat(governor.tryAdmit(c, Demand.oneRequest()).isAdmitted()).isTrue();
        assertThat(governor.tryAdmit(c, Demand.oneRequest()).isAdmitted()).isTrue();
        Admission third = governor.tryAdmit(c, Demand.oneRequest());
        assertThat(third.isAdmitted()).isFalse();
        assertThat(third.rejection().scope()).isEqualTo("openai/k_abc123/gpt-4o-mini");
        // another key is another provider scope: nothing learned for it yet
        CallContext other = CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("a")
                .apiKeyId("k_other")
                .build();
        assertThat(governor.tryAdmit(other, Demand.oneRequest()).isAdmitted()).isTrue();
    }

    @Test
    void aProviderPauseHoldsEveryCallerThenOneProbeGoesFirst() {
        governor();
        CallContext c = call("a");
        governor.tryAdmit(c, Demand.oneRequest()).permit().settle(Usage.NONE);
        governor.learner().pauseProviderScope(c, Duration.ofSeconds(2).toNanos());
        CompletableFuture<Admission> first = governor.admitAsync(c, Demand.oneRequest(), 0);
        CompletableFuture<Admission> second = governor.admitAsync(call("b"), Demand.oneRequest(), 0);
        timer.advance(Duration.ofMillis(1_999));
        assertThat(first).isNotDone();
        timer.advance(Duration.ofMillis(1));
        assertThat(first).isDone();
        assertThat(second).isNotDone(); // the probe is out
        Permit probe = first.join().permit();
        governor.learner().answered(probe, true);
        assertThat(second).isDone();
        assertThat(second.join().isAdmitted()).isTrue();
    }

    @Test
    void observeModeComputesButNeverDelaysOrRejects() {
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .mode(Mode.OBSERVE)
                .limit(perMinute("rpm", REQUESTS, 1))
                .build();
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.stats().observedWouldDelay(GatewayDecision.REJECTED_LOCALLY))
                .isEqualTo(1);
    }

    @Test
    void unenforcedLimitsCountButNeverRefuse() {
        governor(LimitSpec.builder("rpm", REQUESTS, 1)
                .window(Duration.ofMinutes(1))
                .enforced(false)
                .build());
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.controls().available(REQUESTS)).isEqualTo(-1);
    }

    @Test
    void anOperatorPauseRejectsATenantsCallsUntilResumed() {
        governor();
        governor.controls().pauseTenant("a");
        Admission a = governor.tryAdmit(call("a"), Demand.oneRequest());
        assertThat(a.rejection().decision()).isEqualTo(GatewayDecision.PAUSED);
        assertThat(governor.tryAdmit(call("b"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        governor.controls().resumeTenant("a");
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
    }

    @Test
    void loweringACapacityLiveAppliesToTheNextAdmission() {
        governor(perMinute("rpm", REQUESTS, 100));
        governor.controls().setCapacity("rpm", 2);
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("a"), Demand.oneRequest()).isAdmitted())
                .isFalse();
    }

    @Test
    void aBlockingCallerWaitsOnItsOwnThread() throws Exception {
        governor(perMinute("rpm", REQUESTS, 60));
        for (int i = 0; i < 60; i++) {
            governor.tryAdmit(call("a"), Demand.oneRequest());
        }
        CompletableFuture<Admission> result = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                result.complete(governor.admit(call("a"), Demand.oneRequest(), 0));
            } catch (InterruptedException e) {
                result.completeExceptionally(e);
            }
        });
        caller.start();
        while (governor.controls().waiting() == 0) {
            Thread.onSpinWait();
        }
        timer.advance(Duration.ofSeconds(1));
        caller.join(5_000);
        assertThat(result.get().isAdmitted()).isTrue();
    }
}
