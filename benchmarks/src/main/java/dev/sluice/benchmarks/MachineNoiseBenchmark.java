package dev.sluice.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The control for every percentile this project reports: a fixed amount of pure CPU work (a hash
 * over {@code bytes} bytes: no allocation, no lock, no call out of the loop), timed one piece at a
 * time. Whatever spread its percentiles show is the machine's (interrupts, the hypervisor, the
 * other core's work), not the code's: on a machine that runs it in 30 us at p50 and 70 us at p99,
 * no code that costs 30 us of CPU can show a p99 under 70 us.
 *
 * <pre>
 * java -jar benchmarks/target/sluice-benchmarks.jar MachineNoiseBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(1)
@State(Scope.Thread)
public class MachineNoiseBenchmark {

    /** About 8, 15, 23 and 31 us of work on the machine of docs/benchmarks.md. */
    @Param({"8192", "16384", "24576", "32768"})
    public int bytes;

    private byte[] data;

    @Setup
    public void fill() {
        data = new byte[bytes];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
    }

    @Benchmark
    public long fixedWork() {
        long hash = 0;
        for (byte b : data) {
            hash = hash * 31 + b;
        }
        return hash;
    }
}
