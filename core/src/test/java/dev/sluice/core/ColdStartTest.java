package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A provider scope Sluice knows nothing about (no limit declared, nothing learned yet) starts slow:
 * one call first, whose answer's rate-limit headers tell the limits; if that answer is late, a few
 * more calls (the slow start's window), never every waiting caller at once. Without this a cold
 * service, or a herd of thousands of callers, reaches the provider all together.
 */
class ColdStartTest extends GovernorFixture {

    private static CallContext call(String tenant, String trafficClass) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant(tenant)
                .apiKeyId("k_abc123")
                .trafficClass(trafficClass)
                .build();
    }

    private static CallContext call(String tenant) {
        return call(tenant, null);
    }

    private Governor coldGovernor(LimitSpec... limits) {
        GovernorBuilder b = Governor.builder().clock(clock).timer(timer).coldStartWait(Duration.ofSeconds(3));
        for (LimitSpec l : limits) {
            b.limit(l);
        }
        governor = b.build();
        return governor;
    }

    @Test
    void theFirstCallGoesAloneAndTheOthersFollowWhatItsAnswerTaught() {
        coldGovernor();
        CompletableFuture<Admission> first = governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> second = governor.admitAsync(call("b"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> third = governor.admitAsync(call("c"), Demand.oneRequest(), 0);
        assertThat(first).isCompleted();
        assertThat(second).isNotDone();
        timer.advance(Duration.ofMillis(500));
        assertThat(second).isNotDone();

        // the answer: 2 requests left of 60 a minute; one of the two waiting fits at once
        Permit probe = first.join().permit();
        governor.learner()
                .learn(new ProviderAnswer(call("a"), List.of(new LearnedBudget("requests", REQUESTS, 60, 2, 60_000))));
        governor.learner().answered(probe, true);
        assertThat(second).isCompleted();
        assertThat(second.join().isAdmitted()).isTrue();
        assertThat(third).isNotDone();
    }

    @Test
    void whenTheFirstAnswerIsLateAFewMoreGoAtTheColdStartWaitNeverTheHerd() {
        coldGovernor();
        governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        List<CompletableFuture<Admission>> herd = admitMany(30);
        timer.advance(Duration.ofMillis(2_999));
        assertThat(admitted(herd)).isZero();
        timer.advance(Duration.ofMillis(1));
        // the window opens to ten calls out: the first and nine more
        assertThat(admitted(herd)).isEqualTo(9);
        assertThat(governor.controls().waiting()).isEqualTo(21);
    }

    @Test
    void eachAcceptedAnswerThatTellsNothingWidensTheWindowByOne() {
        coldGovernor();
        Permit first =
                governor.admitAsync(call("a"), Demand.oneRequest(), 0).join().permit();
        List<CompletableFuture<Admission>> herd = admitMany(30);
        // accepted, with no rate-limit headers: the scope still knows nothing, the window widens
        governor.learner().answered(first, true);
        first.settleAndRelease(Usage.NONE);
        assertThat(admitted(herd)).isEqualTo(11);
        Permit next = herd.get(0).join().permit();
        governor.learner().answered(next, true);
        assertThat(admitted(herd)).isEqualTo(12);
        next.settleAndRelease(Usage.NONE);
        assertThat(admitted(herd)).isEqualTo(13);
    }

    /**
     * The first answer is late: ten calls went before any limit was known, and its figure counted
     * only the first. The bucket it teaches starts without the nine others, which the provider
     * counts too; learned as the figure alone, the scope admitted them twice.
     */
    @Test
    void theCallsSentBeforeTheLimitsWereKnownAreChargedToTheBucketsLearnedFromTheFirstAnswer() {
        coldGovernor();
        Permit first =
                governor.admitAsync(call("a"), Demand.oneRequest(), 0).join().permit();
        List<CompletableFuture<Admission>> early = admitMany(9);
        timer.advance(Duration.ofSeconds(3));
        assertThat(admitted(early)).isEqualTo(9);

        // 600 a minute, 600 at once: 599 left after the first call
        governor.learner()
                .learn(new ProviderAnswer(
                        call("a"), List.of(new LearnedBudget("requests", REQUESTS, 600, 599, 60_000))));
        governor.learner().answered(first, true);
        List<CompletableFuture<Admission>> later = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            later.add(governor.admitAsync(call("a"), Demand.oneRequest(), 0));
        }
        // the provider has 599 less the 9, refilled to at most 600 before they went: 591; Sluice
        // keeps back 2.5 for transit (what it saw was 599 less the 10 it had out: 587)
        assertThat(admitted(later)).isBetween(585L, 591L);
    }

    @Test
    void anAnswerThatTellsTheLimitsEndsTheSlowStart() {
        coldGovernor();
        Permit first =
                governor.admitAsync(call("a"), Demand.oneRequest(), 0).join().permit();
        List<CompletableFuture<Admission>> herd = admitMany(30);
        governor.learner()
                .learn(new ProviderAnswer(
                        call("a"), List.of(new LearnedBudget("requests", REQUESTS, 600, 599, 60_000))));
        governor.learner().answered(first, true);
        assertThat(admitted(herd)).isEqualTo(30);
        assertThat(governor.controls().providerScopes().get(0).inSlowStart()).isFalse();
    }

    @Test
    void aCallWhoseOwnDeadlineComesFirstGoesThenInsteadOfBeingRefused() {
        coldGovernor();
        governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> interactive =
                governor.admitAsync(call("b", "interactive"), Demand.oneRequest(), 0);
        assertThat(interactive).isNotDone(); // not refused at once for a wait that may never be needed
        timer.advance(Duration.ofMillis(300));
        assertThat(interactive).isCompleted();
        assertThat(interactive.join().isAdmitted()).isTrue();
    }

    @Test
    void aHerdWhoseWaitsRunOutTogetherGoesOnlyAsFarAsTheWindowTheRestIsRefusedLocally() {
        coldGovernor();
        governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        List<CompletableFuture<Admission>> herd = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            herd.add(governor.admitAsync(call("t" + i, "interactive"), Demand.oneRequest(), 0));
        }
        timer.advance(Duration.ofMillis(300));
        assertThat(admitted(herd)).isEqualTo(9);
        List<Admission> refused = herd.stream()
                .map(CompletableFuture::join)
                .filter(a -> !a.isAdmitted())
                .collect(java.util.stream.Collectors.toList());
        assertThat(refused).hasSize(11);
        assertThat(refused.get(0).rejection().decision()).isEqualTo(GatewayDecision.QUEUE_DEADLINE_EXCEEDED);
        assertThat(refused.get(0).rejection().toString()).contains("10 calls out to a new provider scope");
    }

    @Test
    void aDefaultClassHerdDoesNotPassThroughPastTheWindowWhenItsWaitsRunOut() {
        coldGovernor();
        governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        long deadline = clock.nanoTime() + Duration.ofSeconds(1).toNanos();
        List<CompletableFuture<Admission>> herd = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            herd.add(governor.admitAsync(call("t" + i), Demand.oneRequest(), deadline));
        }
        timer.advance(Duration.ofSeconds(1));
        assertThat(admitted(herd)).isEqualTo(9);
        assertThat(herd).allMatch(CompletableFuture::isDone);
    }

    @Test
    void aRefusedFirstCallLeavesTheNextOneToAskAgain() {
        coldGovernor();
        CompletableFuture<Admission> first = governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> second = governor.admitAsync(call("b"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> third = governor.admitAsync(call("c"), Demand.oneRequest(), 0);
        governor.learner().answered(first.join().permit(), false);
        first.join().permit().settleRefused(true);
        assertThat(second).isCompleted(); // the next call asks
        assertThat(third).isNotDone();
        governor.learner().answered(second.join().permit(), true);
        assertThat(third).isCompleted();
    }

    private List<CompletableFuture<Admission>> admitMany(int n) {
        List<CompletableFuture<Admission>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(governor.admitAsync(call("t" + i), Demand.oneRequest(), 0));
        }
        return out;
    }

    private static long admitted(List<CompletableFuture<Admission>> calls) {
        return calls.stream().filter(f -> f.isDone() && f.join().isAdmitted()).count();
    }

    @Test
    void aScopeWhoseLimitsAreDeclaredIsNotCold() {
        coldGovernor(LimitSpec.builder("rpm", REQUESTS, 600)
                .window(Duration.ofMinutes(1))
                .provider("openai")
                .mirrorsProvider(true)
                .build());
        assertThat(governor.admitAsync(call("a"), Demand.oneRequest(), 0)).isCompleted();
        assertThat(governor.admitAsync(call("b"), Demand.oneRequest(), 0)).isCompleted();
    }

    @Test
    void offByDefaultInTheCoreBuilder() {
        governor();
        assertThat(governor.admitAsync(call("a"), Demand.oneRequest(), 0)).isCompleted();
        assertThat(governor.admitAsync(call("b"), Demand.oneRequest(), 0)).isCompleted();
    }
}
