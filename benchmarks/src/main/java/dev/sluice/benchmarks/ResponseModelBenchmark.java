package dev.sluice.benchmarks;

import dev.sluice.core.provider.json.RootString;
import java.nio.charset.StandardCharsets;
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
 * What finding the model a non-streamed answer names ({@code gen_ai.response.model}) adds to
 * reading it: the per-call benchmark's answer ({@link AnswerReadingBenchmark}, ~2.5 KB), its
 * members in OpenAI's order (the model among the first) or in Azure OpenAI's alphabetical order
 * (the model after the choices, read from the end). Run with {@code -prof gc} for the bytes:
 *
 * <pre>
 * java -jar benchmarks/target/sluice-benchmarks.jar ResponseModelBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class ResponseModelBenchmark {

    private static final RootString MODEL = RootString.named("model");

    @Param({"openai", "azure"})
    public String order;

    private byte[] answer;

    @Setup
    public void setUp() {
        if (order.equals("openai")) {
            answer = AnswerReadingBenchmark.answer();
            return;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 360; i++) {
            text.append(" word").append(i % 10);
        }
        answer = ("{\"choices\":[{\"content_filter_results\":{},\"finish_reason\":\"stop\",\"index\":0,"
                        + "\"logprobs\":null,\"message\":{\"content\":\"" + text + "\",\"refusal\":null,"
                        + "\"role\":\"assistant\"}}],\"created\":1764633600,\"id\":\"chatcmpl-sim-1\","
                        + "\"model\":\"gpt-4o-mini-2024-07-18\",\"object\":\"chat.completion\","
                        + "\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{}}],"
                        + "\"system_fingerprint\":\"fp_sluice_sim\",\"usage\":{\"completion_tokens\":360,"
                        + "\"prompt_tokens\":2048,\"total_tokens\":2408}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public String findModel() {
        return MODEL.find(answer, 0, answer.length);
    }
}
