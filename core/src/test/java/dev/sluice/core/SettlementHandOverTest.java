package dev.sluice.core;

import static dev.sluice.config.Dimension.CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.LimitSpec;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A thread settling a call never waits for the governor's lock, even when other calls wait for the
 * room it gives back (an event loop settles calls as their answers end): it leaves the settlement
 * to the lock's holder, which applies it as it unlocks, and the waiting call gets its turn then.
 */
class SettlementHandOverTest {

    private final FakeClock clock = new FakeClock();
    private final ManualTimer timer = new ManualTimer(clock);
    private final LockHoldingStore store = new LockHoldingStore();
    private final LockHoldingStore.Hold hold = new LockHoldingStore.Hold(store);
    private final Governor governor = Governor.builder()
            .clock(clock)
            .timer(timer)
            .store(store)
            .limit(LimitSpec.builder("conc", CONCURRENCY, 1).build())
            .build();

    @AfterEach
    void close() {
        governor.close();
    }

    private static CallContext call() {
        return CallContext.builder("openai").model("gpt-4o-mini").tenant("t").build();
    }

    @Test
    void aReleaseWhileAnotherThreadHoldsTheLockReturnsAtOnceAndTheHolderHandsTheRoomOn() throws Exception {
        Permit first = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        CompletableFuture<Admission> second = governor.admitAsync(call(), Demand.oneRequest(), 0);
        assertThat(second).isNotDone();
        hold.begin();

        first.settle(Usage.NONE);
        first.releaseConcurrency();
        boolean releasedWhileLocked = hold.isHeld();
        boolean admittedWhileLocked = second.isDone();
        hold.end();

        assertThat(releasedWhileLocked)
                .as("the release returned while another thread held the lock")
                .isTrue();
        assertThat(admittedWhileLocked)
                .as("nothing is decided without the lock")
                .isFalse();
        assertThat(second)
                .as("the holder applied the release as it unlocked: no timer tick, no new admission")
                .isDone();
        assertThat(second.join().isAdmitted()).isTrue();
        second.join().permit().releaseConcurrency();
        assertThat(governor.available(CONCURRENCY)).isEqualTo(1);
    }
}
