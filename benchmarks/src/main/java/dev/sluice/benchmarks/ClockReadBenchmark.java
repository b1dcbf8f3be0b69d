package dev.sluice.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one clock read costs on this machine: the floor under any rate limiter, and a large share
 * of Sluice's admission, which reads both clocks at admission, at settlement and at release. Read
 * it next to {@link AdmissionBenchmark}: on a virtual machine a clock read may cost tens of ns.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class ClockReadBenchmark {

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public long currentTimeMillis() {
        return System.currentTimeMillis();
    }
}
