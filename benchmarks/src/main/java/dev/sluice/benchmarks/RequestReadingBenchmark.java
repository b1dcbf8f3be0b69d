package dev.sluice.benchmarks;

import dev.sluice.benchmarks.overhead.CallLoadApp;
import dev.sluice.core.provider.openai.OpenAiRequestBody;
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
 * What weighing one OpenAI chat request costs Sluice before admission: the body read for its
 * model, output cap, stream flags and prompt size. {@code chat} is the body openai-java sends for
 * the per-call benchmark's call (an 8 KiB prompt, docs/benchmarks.md "Per-call overhead");
 * {@code tools} is a streamed chat with a system message, a tool definition and an earlier tool
 * call; {@code responses} is a Responses API body, which takes the jackson walk.
 *
 * <pre>
 * java -jar benchmarks/target/sluice-benchmarks.jar RequestReadingBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class RequestReadingBenchmark {

    @Param({"chat", "tools", "responses"})
    public String body;

    private byte[] json;

    @Setup
    public void setUp() {
        json = body(body).getBytes(StandardCharsets.UTF_8);
    }

    static String body(String kind) {
        String prompt = CallLoadApp.PROMPT;
        switch (kind) {
            case "chat":
                return "{\"messages\":[{\"content\":\"" + prompt + "\",\"role\":\"user\"}],\"model\":\"gpt-4o-mini\","
                        + "\"max_completion_tokens\":360}";
            case "tools":
                return "{\"messages\":[{\"role\":\"system\",\"content\":\"You are a terse assistant. Answer in French.\"},"
                        + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + prompt + "\"}]},"
                        + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Lyon\\\"}\"}}]},"
                        + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"14 \u00b0C, clair\"}],"
                        + "\"model\":\"gpt-4o-mini\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                        + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":"
                        + "\"The weather in a city\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":"
                        + "{\"type\":\"string\"}},\"required\":[\"city\"]}}}],\"temperature\":0.2,\"max_tokens\":512}";
            case "responses":
                return "{\"model\":\"gpt-4o-mini\",\"instructions\":\"You are a terse assistant.\",\"input\":[{\"role\":"
                        + "\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"" + prompt + "\"}]}],"
                        + "\"max_output_tokens\":360}";
            default:
                throw new IllegalArgumentException("body: chat, tools or responses, not " + kind);
        }
    }

    @Benchmark
    public OpenAiRequestBody read() {
        return OpenAiRequestBody.read(json);
    }
}
