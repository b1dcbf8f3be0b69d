package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static dev.sluice.config.Dimension.TOTAL_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.Bucket;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller reporting its answer's rate-limit figures never waits for the governor's lock: the
 * figures wait in a backlog, and the next call admitted applies them before it is decided, so
 * nothing they say is lost or applied too late to matter.
 */
class AnswerBacklogTest {

    private static final long CAPACITY = 600; // a minute

    private final FakeClock clock = new FakeClock();
    private final ManualTimer timer = new ManualTimer(clock);
    private final LockHoldingStore store = new LockHoldingStore();
    private final LockHoldingStore.Hold hold = new LockHoldingStore.Hold(store);
    private final Governor governor =
            Governor.builder().clock(clock).timer(timer).store(store).build();

    @AfterEach
    void close() {
        governor.close();
    }

    private static CallContext call() {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("t")
                .apiKeyId("k_1")
                .build();
    }

    private static List<LearnedBudget> remaining(long remaining) {
        return List.of(new LearnedBudget("requests", REQUESTS, CAPACITY, remaining, 60_000));
    }

    private long room() {
        Bucket b = governor.controls().providerScopes().get(0).learnedBuckets()[0];
        return b.roomAsCounted(clock.nanoTime(), clock.epochMillis()); // read after the holder let go
    }

    @Test
    void aCallerReportsItsAnswerWithoutWaitingForTheLockAndTheNextAdmissionAppliesIt() throws Exception {
        governor.learner().learn(new ProviderAnswer(call(), remaining(CAPACITY)));
        for (int i = 0; i < 5; i++) { // enough admissions that the lane has room lent to this thread
            governor.tryAdmit(call(), Demand.oneRequest()).permit().settle(Usage.NONE);
        }
        hold.begin();

        // someone Sluice cannot see took all but 100
        governor.learner().learn(new ProviderAnswer(call(), remaining(100)));
        boolean learnedWhileLocked = hold.isHeld();
        hold.end();

        assertThat(learnedWhileLocked)
                .as("learn returned while another thread held the lock")
                .isTrue();
        Permit next = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        assertThat(next).as("the call still goes").isNotNull();
        assertThat(room())
                .as("the figure was applied before the call was decided")
                .isBetween(98L, 99L);
        next.settle(Usage.NONE);
    }

    @Test
    void everyAnswerThatWaitedIsApplied() throws Exception {
        governor.learner().learn(new ProviderAnswer(call(), remaining(CAPACITY)));
        hold.begin();
        governor.learner().learn(new ProviderAnswer(call(), remaining(100)));
        governor.learner()
                .learn(new ProviderAnswer(
                        call(), List.of(new LearnedBudget("tokens", TOTAL_TOKENS, 150_000, 150_000, 60_000))));
        hold.end();

        Permit next = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        Bucket[] learned = governor.controls().providerScopes().get(0).learnedBuckets();
        assertThat(learned).hasSize(2);
        assertThat(room()).isBetween(98L, 99L);
        assertThat(learned[1].limit().capacity()).isEqualTo(150_000);
        next.settle(Usage.NONE);
    }
}
