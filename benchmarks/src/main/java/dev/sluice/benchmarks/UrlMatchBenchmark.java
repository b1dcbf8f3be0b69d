package dev.sluice.benchmarks;

import dev.sluice.config.SluiceConfig;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.exchange.ExchangeGovernance;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What every HTTP exchange of the host pays for Sluice's question "is this an LLM call?"
 * ({@code ExchangeGovernance.governs}, asked by each hook before anything else, and again, as the
 * provider's match, by a governed call's preparation): for a provider's URL and for a URL no
 * provider has, handed over as a new string each time, as OkHttp's and Apache's requests do.
 *
 * <pre>
 * java -jar benchmarks/target/sluice-benchmarks.jar UrlMatchBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class UrlMatchBenchmark {

    @Param({"https://api.openai.com/v1/chat/completions", "https://llm.internal.test/v1/chat/completions"})
    public String url;

    private char[] chars;
    private SluiceRuntime runtime;
    private ExchangeGovernance governance;

    @Setup(Level.Trial)
    public void start() {
        chars = url.toCharArray();
        runtime = SluiceRuntime.start(SluiceConfig.defaults());
        governance = runtime.governance();
    }

    @TearDown(Level.Trial)
    public void stop() {
        runtime.close();
    }

    @Benchmark
    public boolean governs() {
        return governance.governs(new String(chars));
    }
}
