package dev.sluice.benchmarks;

import dev.sluice.config.Dimension;
import dev.sluice.core.CallContext;
import dev.sluice.core.Clock;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorBuilder;
import dev.sluice.core.Permit;
import dev.sluice.core.Usage;
import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A diagnostic, not a comparison: Sluice's 1-bucket admit + settle with the governor's clock
 * swapped through the public {@link GovernorBuilder#clock}, to show how much of the operation is
 * spent reading clocks. {@code systemClock} is the real thing; {@code noWallClock} never reads
 * {@code currentTimeMillis()} (a token bucket does not need it); {@code noClock} reads no clock at
 * all (a counter stands in for {@code nanoTime()}), which leaves the cost of the locks, the
 * allocations and the bookkeeping. Not a valid configuration for production.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@Threads(1)
@State(Scope.Thread)
public class ClockShareBenchmark {

    Governor systemClock;
    Governor noWallClock;
    Governor noClock;
    CallContext context;

    @Setup(Level.Trial)
    public void setUp() {
        systemClock = oneBucket(Clock.SYSTEM);
        noWallClock = oneBucket(new Clock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long epochMillis() {
                return 0;
            }
        });
        noClock = oneBucket(new Clock() {
            private long ticks;

            @Override
            public long nanoTime() {
                return ticks++;
            }

            @Override
            public long epochMillis() {
                return 0;
            }
        });
        context = AdmissionBenchmark.newContext();
    }

    private static Governor oneBucket(Clock clock) {
        return Governor.builder()
                .clock(clock)
                .limit(LimitSpec.perWindow(
                        "requests", Dimension.REQUESTS, AdmissionBenchmark.HUGE, Duration.ofMinutes(1)))
                .build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        systemClock.close();
        noWallClock.close();
        noClock.close();
    }

    @Benchmark
    public Permit sluice_1bucket_admitSettle_systemClock() {
        return AdmissionBenchmark.admitSettle(systemClock, context, AdmissionBenchmark.ONE_REQUEST, Usage.NONE);
    }

    @Benchmark
    public Permit sluice_1bucket_admitSettle_noWallClock() {
        return AdmissionBenchmark.admitSettle(noWallClock, context, AdmissionBenchmark.ONE_REQUEST, Usage.NONE);
    }

    @Benchmark
    public Permit sluice_1bucket_admitSettle_noClock() {
        return AdmissionBenchmark.admitSettle(noClock, context, AdmissionBenchmark.ONE_REQUEST, Usage.NONE);
    }
}
