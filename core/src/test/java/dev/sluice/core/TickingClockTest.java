package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.schedule.Timer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fast path's clock: a reading starts the ticks, each tick refreshes the latest reading, and
 * the ticks go on only while the fast path admits on the stale reading; a closed governor starts
 * none, and the latest reading never goes back.
 */
class TickingClockTest extends GovernorFixture {

    private static final long MS = 1_000_000L;

    /** The ticks planned and not run yet, in order. */
    private final List<Runnable> planned = new ArrayList<>();

    private final List<Long> delays = new ArrayList<>();

    private final Timer recording = new Timer() {
        @Override
        public Cancellable schedule(Runnable task, long delayNanos) {
            planned.add(task);
            delays.add(delayNanos);
            return () -> planned.remove(task);
        }

        @Override
        public void shutdown() {}
    };

    private TickingClock ticking;

    @BeforeEach
    void ticking() {
        ticking = new TickingClock(governor(), clock, recording, clock.nanoTime());
    }

    /** Runs the tick planned first, as the timer would. */
    private void tick() {
        assertThat(planned).isNotEmpty();
        planned.remove(0).run();
    }

    @Test
    void untilAReadingNothingTicks() {
        clock.advanceNanos(5 * MS);
        assertThat(ticking.isTicking()).isFalse();
        assertThat(ticking.latest()).isEqualTo(clock.nanoTime() - 5 * MS);
        assertThat(planned).isEmpty();
    }

    @Test
    void aReadingKeepsTheTimeAndStartsTheTicks() {
        clock.advanceNanos(5 * MS);
        assertThat(ticking.read()).isEqualTo(clock.nanoTime());
        assertThat(ticking.latest()).isEqualTo(clock.nanoTime());
        assertThat(ticking.latestOpaque()).isEqualTo(clock.nanoTime());
        assertThat(ticking.isTicking()).isTrue();
        assertThat(delays).containsExactly(TickingClock.TICK_NANOS);

        ticking.read();
        assertThat(delays).as("one tick planned at a time").hasSize(1);
    }

    @Test
    void aTickRefreshesTheStaleReading() {
        ticking.read();
        ticking.usedStale();
        clock.advanceNanos(TickingClock.TICK_NANOS);
        assertThat(ticking.latest()).isEqualTo(clock.nanoTime() - TickingClock.TICK_NANOS);

        tick();

        assertThat(ticking.latest()).isEqualTo(clock.nanoTime());
    }

    @Test
    void theTicksGoOnWhileTheFastPathUsesTheStaleReading() {
        ticking.read();
        ticking.usedStale();
        tick();
        assertThat(ticking.isTicking()).isTrue();
        assertThat(planned).hasSize(1);

        ticking.usedStale();
        tick();
        assertThat(planned).hasSize(1);
    }

    @Test
    void aTickNobodyUsedStopsTheTicksUntilTheNextReading() {
        ticking.read();
        ticking.usedStale();
        tick();
        tick(); // the stale reading was not used since the last tick

        assertThat(ticking.isTicking()).isFalse();
        assertThat(planned).isEmpty();

        ticking.read();
        assertThat(ticking.isTicking()).isTrue();
        assertThat(planned).hasSize(1);
    }

    @Test
    void aClosedGovernorStartsNoTicks() {
        governor.close();

        clock.advanceNanos(5 * MS);
        assertThat(ticking.read()).isEqualTo(clock.nanoTime());
        assertThat(ticking.isTicking()).isFalse();
        assertThat(planned).isEmpty();
    }

    @Test
    void aGovernorClosingAfterAStaleReadStopsTheTicks() {
        ticking.read();
        ticking.usedStale();
        governor.close();

        tick();

        assertThat(ticking.isTicking()).isFalse();
        assertThat(planned).isEmpty();
    }

    @Test
    void theLatestReadingNeverGoesBack() {
        clock.advanceNanos(5 * MS);
        ticking.read();
        long read = ticking.latest();

        ticking.closing(read - MS);
        assertThat(ticking.latest()).isEqualTo(read);

        ticking.closing(read + MS);
        assertThat(ticking.latest()).isEqualTo(read + MS);
        assertThat(ticking.read())
                .as("a reading behind the latest keeps the latest")
                .isEqualTo(read + MS);
    }
}
