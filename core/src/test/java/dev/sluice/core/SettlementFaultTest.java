package dev.sluice.core;

import static dev.sluice.config.Dimension.CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.FaultyBucket;
import dev.sluice.core.quota.LimitSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A settlement that fails to apply (a bug, a broken bucket) costs only its own permit: whoever
 * drains the queue (here the lock's holder, handing over as it unlocks) neither fails nor drops
 * the settlements queued behind it.
 */
class SettlementFaultTest {

    private final FakeClock clock = new FakeClock();
    private final ManualTimer timer = new ManualTimer(clock);
    private final AtomicInteger faults = new AtomicInteger();
    private final LockHoldingStore store =
            new LockHoldingStore(b -> b.limit().dimension() == CONCURRENCY ? new FaultyBucket(b, faults) : b);
    private final LockHoldingStore.Hold hold = new LockHoldingStore.Hold(store);
    private final Governor governor = Governor.builder()
            .clock(clock)
            .timer(timer)
            .store(store)
            .limit(LimitSpec.builder("conc", CONCURRENCY, 2).build())
            .build();

    @AfterEach
    void close() {
        governor.close();
    }

    private static CallContext call() {
        return CallContext.builder("openai").model("gpt-4o-mini").tenant("t").build();
    }

    @Test
    void aSettlementThatFailsCostsOnlyItsOwnSlotAndNotTheThreadThatAppliesIt() throws Exception {
        Permit first = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        Permit second = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        CompletableFuture<Admission> third = governor.admitAsync(call(), Demand.oneRequest(), 0);
        assertThat(third).isNotDone();
        hold.begin();

        faults.set(1); // the first release applied throws
        first.settle(Usage.NONE);
        first.releaseConcurrency();
        second.settle(Usage.NONE);
        second.releaseConcurrency();
        hold.end(); // the holder applies both as it unlocks: it must not fail for them

        assertThat(faults.get()).as("the fault was hit").isZero();
        assertThat(third)
                .as("the other release was applied: the waiting call has its slot")
                .isDone();
        assertThat(third.join().isAdmitted()).isTrue();
    }
}
