package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A provider scope Sluice knows nothing about (no limit declared, nothing learned yet) sends one
 * call first; the others wait for its answer, whose rate-limit headers tell the limits, and go at
 * once if it is late. Without this, every caller of a cold service reaches the provider at once.
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
        Governor.Builder b = Governor.builder().clock(clock).timer(timer).coldStartWait(Duration.ofSeconds(3));
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
        governor.learn(call("a"), List.of(new Governor.LearnedBudget("requests", REQUESTS, 60, 2, 60_000)));
        governor.providerAnswered(probe, true);
        assertThat(second).isCompleted();
        assertThat(second.join().isAdmitted()).isTrue();
        assertThat(third).isNotDone();
    }

    @Test
    void whenTheFirstAnswerIsLateTheOthersGoAtTheColdStartWait() {
        coldGovernor();
        governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> second = governor.admitAsync(call("b"), Demand.oneRequest(), 0);
        timer.advance(Duration.ofMillis(2_999));
        assertThat(second).isNotDone();
        timer.advance(Duration.ofMillis(1));
        assertThat(second).isCompleted();
        assertThat(second.join().isAdmitted()).isTrue();
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
    void aRefusedFirstCallLeavesTheNextOneToAskAgain() {
        coldGovernor();
        CompletableFuture<Admission> first = governor.admitAsync(call("a"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> second = governor.admitAsync(call("b"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> third = governor.admitAsync(call("c"), Demand.oneRequest(), 0);
        governor.providerAnswered(first.join().permit(), false);
        assertThat(second).isCompleted(); // the next probe
        assertThat(third).isNotDone();
        governor.providerAnswered(second.join().permit(), true);
        assertThat(third).isCompleted();
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
