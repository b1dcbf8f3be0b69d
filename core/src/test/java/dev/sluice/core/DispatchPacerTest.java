package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.schedule.Timer;
import dev.sluice.core.schedule.TrafficClass;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * While calls wait, the timer's next pass over them comes when a pass found room may come back, at
 * the first deadline, or at the latest a safety tick away, never sooner than the minimum; a pass
 * already due sooner is kept.
 */
class DispatchPacerTest extends GovernorFixture {

    private static final long MS = 1_000_000L;

    /** The delays the pacer asked the timer for, in order. */
    private final List<Long> planned = new ArrayList<>();

    private int cancelled;

    private final Timer recording = new Timer() {
        @Override
        public Cancellable schedule(Runnable task, long delayNanos) {
            planned.add(delayNanos);
            return () -> cancelled++;
        }

        @Override
        public void shutdown() {}
    };

    private DispatchPacer pacer;

    @BeforeEach
    void pacer() {
        pacer = new DispatchPacer(governor(), recording);
    }

    /** A pass that found room coming back after these delays, ending with no deadline due. */
    private void passFinding(long... roomInNanos) {
        passFinding(null, roomInNanos);
    }

    private void passFinding(Waiter firstDeadline, long... roomInNanos) {
        pacer.passBegins();
        for (long nanos : roomInNanos) {
            pacer.roomIn(nanos);
        }
        pacer.passEnded(clock.nanoTime(), firstDeadline);
    }

    private Waiter dueIn(long nanos) {
        CallContext call = CallContext.builder("openai").tenant("search").build();
        return new Waiter(
                call, Demand.oneRequest(), TrafficClass.defaultClass(), clock.nanoTime() + nanos, clock.nanoTime());
    }

    @Test
    void withNothingExpectedTheNextPassIsASafetyTickAway() {
        passFinding();
        assertThat(planned).containsExactly(DispatchPacer.SAFETY_TICK_NANOS);
    }

    @Test
    void roomThatComesBackOnlyWhenCallsSettleWakesNobody() {
        passFinding(Bucket.ON_RELEASE, Bucket.NEVER);
        assertThat(planned).containsExactly(DispatchPacer.SAFETY_TICK_NANOS);
    }

    @Test
    void theSoonestRoomFoundSetsTheNextPass() {
        passFinding(40 * MS, 7 * MS, 90 * MS);
        assertThat(planned).containsExactly(7 * MS);
    }

    @Test
    void roomSoonerThanTheMinimumWaitsForTheMinimum() {
        passFinding(10);
        assertThat(planned).containsExactly(DispatchPacer.MIN_WAKE_NANOS);
    }

    @Test
    void aDeadlineBeforeTheRoomComesFirst() {
        passFinding(dueIn(3 * MS), 7 * MS);
        assertThat(planned).containsExactly(3 * MS);
    }

    @Test
    void aPassAlreadyDueSoonerIsKept() {
        passFinding(7 * MS);
        clock.advanceNanos(MS);
        passFinding(20 * MS);
        assertThat(planned).containsExactly(7 * MS);
        assertThat(cancelled).isZero();
    }

    @Test
    void aSoonerPassReplacesTheOnePlanned() {
        passFinding(20 * MS);
        passFinding(7 * MS);
        assertThat(planned).containsExactly(20 * MS, 7 * MS);
        assertThat(cancelled).isEqualTo(1);
    }

    @Test
    void afterThePlannedPassRanTheNextIsPlannedAfresh() {
        passFinding(7 * MS);
        clock.advanceNanos(7 * MS);
        pacer.run();
        passFinding(20 * MS);
        assertThat(planned).containsExactly(7 * MS, 20 * MS);
        assertThat(cancelled).isZero();
    }

    @Test
    void aClosingGovernorCancelsThePlannedPass() {
        passFinding(7 * MS);
        pacer.cancel();
        assertThat(cancelled).isEqualTo(1);
    }
}
