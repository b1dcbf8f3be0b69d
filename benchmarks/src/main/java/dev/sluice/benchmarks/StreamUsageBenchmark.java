package dev.sluice.benchmarks;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.openai.OpenAiUsage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What reading one streamed OpenAI chat answer costs Sluice: the usage parser the exchange engine
 * attaches to a {@code text/event-stream} answer, fed the answer as it comes off the wire, then
 * asked its usage and the model the answer named. The
 * answer is the per-call benchmark's (docs/benchmarks.md, "Per-call overhead"): 360 chunks of a
 * few characters each, shaped as OpenAI sends them (and as the simulator does), then the usage
 * chunk and {@code [DONE]}, in reads of 1,024 bytes. Run with {@code -prof gc} for the bytes
 * allocated per answer:
 *
 * <pre>
 * java -jar benchmarks/target/sluice-benchmarks.jar StreamUsageBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class StreamUsageBenchmark {

    static final int CHUNKS = 360;
    static final int READ_BYTES = 1_024;

    /** Four characters a token: the estimate these benchmarks need, not a tokenizer's cost. */
    static final TokenEstimator ESTIMATOR = new TokenEstimator() {
        @Override
        public long estimateInputTokens(String model, long characters, int parts) {
            return Math.max(1, characters / 4);
        }

        @Override
        public long tokensForText(String model, long characters) {
            return characters / 4;
        }
    };

    private RequestFacts facts;
    private Headers headers;
    private byte[] answer;

    @Setup
    public void setUp() {
        facts = RequestFacts.builder("openai")
                .model("gpt-4o-mini")
                .streaming(true)
                .build();
        headers = Headers.of(Map.of("content-type", List.of("text/event-stream; charset=utf-8")));
        answer = streamedAnswer();
    }

    static byte[] streamedAnswer() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String head = "{\"id\":\"chatcmpl-sim-1\",\"object\":\"chat.completion.chunk\",\"created\":1764633600,"
                + "\"model\":\"gpt-4o-mini\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_sluice_sim\",";
        for (int i = 0; i < CHUNKS; i++) {
            String delta =
                    i == 0 ? "{\"role\":\"assistant\",\"content\":\"\"}" : "{\"content\":\" word" + (i % 10) + "\"}";
            String finish = i == CHUNKS - 1 ? "\"stop\"" : "null";
            write(
                    out,
                    "data: " + head + "\"choices\":[{\"index\":0,\"delta\":" + delta
                            + ",\"logprobs\":null,\"finish_reason\":" + finish + "}],\"usage\":null}\n\n");
        }
        write(
                out,
                "data: " + head + "\"choices\":[],\"usage\":{\"prompt_tokens\":2048,\"completion_tokens\":360,"
                        + "\"total_tokens\":2408,\"prompt_tokens_details\":{\"cached_tokens\":0},"
                        + "\"completion_tokens_details\":{\"reasoning_tokens\":0}}}\n\n");
        write(out, "data: [DONE]\n\n");
        return out.toByteArray();
    }

    private static void write(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    @Benchmark
    public Usage readStreamedAnswer(Blackhole hole) {
        UsageParser parser = OpenAiUsage.parser(facts, headers, ESTIMATOR, 0);
        for (int at = 0; at < answer.length; at += READ_BYTES) {
            parser.accept(answer, at, Math.min(READ_BYTES, answer.length - at));
        }
        parser.finish();
        hole.consume(parser.responseModel());
        return parser.usage();
    }
}
