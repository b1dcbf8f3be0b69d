package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * What a ramp reads of its last interval: a 20 s interval here, so one slot is one second and
 * rates come out in whole figures.
 */
class RampHealthTest {

    private static final long SLOT = Duration.ofSeconds(1).toNanos();
    private static final long MS = 1_000_000L;

    private final FakeClock clock = new FakeClock(); // starts on a slot's first nanosecond
    private final RampHealth health = new RampHealth(Duration.ofSeconds(20).toNanos());

    private void admit(int calls) {
        for (int i = 0; i < calls; i++) {
            health.admitted(0, false, clock.nanoTime());
        }
    }

    private void answer(int status, long latencyNanos) {
        health.answered(status, latencyNanos, clock.nanoTime());
    }

    private RampHealth.Window now() {
        return health.over(clock.nanoTime());
    }

    private void advanceSlots(long slots) {
        clock.advanceNanos(slots * SLOT);
    }

    @Test
    void theSlotStillFillingIsNotCountedYet() {
        admit(3);
        clock.advanceNanos(SLOT - 1);
        assertThat(now().admittedPerSecond).isZero();
        clock.advanceNanos(1);
        assertThat(now().admittedPerSecond).isCloseTo(3 / 20.0, within(1e-9));
    }

    @Test
    void theRecentRateIsOverTheLastQuarterIntervalAndTheAverageOverTheWholeOne() {
        admit(10);
        advanceSlots(1);
        RampHealth.Window justAfter = now();
        assertThat(justAfter.latelyPerSecond).isCloseTo(10 / 5.0, within(1e-9));
        assertThat(justAfter.admittedPerSecond).isCloseTo(10 / 20.0, within(1e-9));

        advanceSlots(5); // out of the last quarter, still in the interval
        RampHealth.Window later = now();
        assertThat(later.latelyPerSecond).isZero();
        assertThat(later.admittedPerSecond).isCloseTo(10 / 20.0, within(1e-9));
    }

    @Test
    void callsOfTheIntervalBeforeCountApartAndOlderOnesAreForgotten() {
        admit(40);
        advanceSlots(21); // a whole interval since they came
        RampHealth.Window next = now();
        assertThat(next.admittedPerSecond).isZero();
        assertThat(next.admittedBeforePerSecond).isCloseTo(40 / 20.0, within(1e-9));

        advanceSlots(20);
        RampHealth.Window twoLater = now();
        assertThat(twoLater.admittedBeforePerSecond).isZero();
        assertThat(twoLater.admittedPerSecond).isZero();
    }

    /** The ring of slots comes round every 41 seconds: a slot reused for a later second starts empty. */
    @Test
    void aSlotReusedForALaterStretchStartsEmpty() {
        admit(7);
        advanceSlots(RampHealth.SLOTS); // the same slot of the ring
        admit(1);
        answer(200, MS);
        advanceSlots(1);
        RampHealth.Window w = now();
        assertThat(w.admittedPerSecond * 20).isCloseTo(1, within(1e-9));
        assertThat(w.admittedBeforePerSecond).isZero();
        assertThat(w.answers).isEqualTo(1);
    }

    @Test
    void theRefusedShareIsZeroUntilFiveAnswersTellIt() {
        for (int i = 0; i < 4; i++) {
            answer(429, MS);
        }
        advanceSlots(1);
        RampHealth.Window four = now();
        assertThat(four.answers).isEqualTo(4);
        assertThat(four.refused).isEqualTo(4);
        assertThat(four.refusedShare()).isZero();

        answer(200, MS);
        answer(503, MS); // only a 429 is a refusal
        advanceSlots(1);
        RampHealth.Window six = now();
        assertThat(six.answers).isEqualTo(6);
        assertThat(six.refused).isEqualTo(4);
        assertThat(six.refusedShare()).isCloseTo(4 / 6.0, within(1e-9));
    }

    @Test
    void theLatencyIsThe95thPercentileOfTheAnswersAndUnknownWithFewerThanFive() {
        for (int ms = 1; ms <= 4; ms++) {
            answer(200, ms * MS);
        }
        assertThat(now().latencyP95Nanos).isEqualTo(-1);
        for (int ms = 5; ms <= 20; ms++) {
            answer(200, ms * MS);
        }
        // the 19th of 20 sorted samples: one answer in twenty may be slower
        assertThat(now().latencyP95Nanos).isEqualTo(19 * MS);
    }

    @Test
    void samplesOlderThanTheIntervalAndItsFillingSlotAreForgotten() {
        for (int i = 0; i < 5; i++) {
            answer(200, 40 * MS);
        }
        advanceSlots(RampHealth.SLOTS_PER_INTERVAL + 1);
        assertThat(now().latencyP95Nanos)
                .as("taken at the window's first nanosecond")
                .isEqualTo(40 * MS);
        clock.advanceNanos(1);
        assertThat(now().latencyP95Nanos).isEqualTo(-1);
    }

    /** Only the latest 512 answer times are kept: a slow start long ago no longer weighs. */
    @Test
    void theLatestSamplesReplaceTheOldestOnes() {
        for (int i = 0; i < 100; i++) {
            answer(200, 5_000 * MS);
        }
        for (int i = 0; i < RampHealth.SAMPLES; i++) {
            answer(200, 2 * MS);
        }
        assertThat(now().latencyP95Nanos).isEqualTo(2 * MS);
    }

    /** A wait the ramp itself imposed says nothing of the provider: only the other waits count. */
    @Test
    void theQueueWaitLeavesOutWaitsTheRampCausedButCountsThoseCalls() {
        for (int i = 0; i < 10; i++) {
            health.admitted(3_000 * MS, true, clock.nanoTime());
        }
        assertThat(now().waitP95Nanos).isEqualTo(-1);
        for (int i = 1; i <= 5; i++) {
            health.admitted(i * MS, false, clock.nanoTime());
        }
        advanceSlots(1);
        RampHealth.Window w = now();
        assertThat(w.waitP95Nanos).isEqualTo(5 * MS);
        assertThat(w.admittedPerSecond * 20).isCloseTo(15, within(1e-9));
    }

    /** Callers' threads write as their calls go and come back: none of their counts is lost. */
    @Test
    void callsCountedFromManyThreadsAtOnceAreAllCounted() throws Exception {
        int threads = 8;
        int each = 2_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        long at = clock.nanoTime();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < each; i++) {
                    health.admitted(0, false, at);
                    health.answered(i % 2 == 0 ? 429 : 200, MS, at);
                }
            });
            th.start();
            started.add(th);
        }
        start.countDown();
        for (Thread th : started) {
            th.join();
        }
        RampHealth.Window w = health.over(at + SLOT);
        assertThat(w.admittedPerSecond * 20).isCloseTo(threads * each, within(1e-6));
        assertThat(w.answers).isEqualTo((long) threads * each);
        assertThat(w.refused).isEqualTo((long) threads * each / 2);
    }
}
