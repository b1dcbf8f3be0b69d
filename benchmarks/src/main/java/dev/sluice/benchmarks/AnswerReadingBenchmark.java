package dev.sluice.benchmarks;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.openai.OpenAiAdapter;
import dev.sluice.core.provider.openai.OpenAiUsage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * What reading one non-streamed OpenAI chat answer costs Sluice once it arrives: its headers
 * wrapped, the rate-limit headers and the organization read, and the body (the per-call
 * benchmark's answer, ~2.6 KB with 360 tokens of text, docs/benchmarks.md "Per-call overhead") fed
 * to the usage parser in the reads an HTTP client hands over, then read for its usage and the model
 * it names. The
 * headers are OpenAI's set over HTTP/1.1, a few names capitalised as its edge sends them, with a
 * {@code Content-Length} ({@code announced}) or without one ({@code chunked}, as the simulator
 * sends, and as OkHttp hands over an answer it unzipped). Run with {@code -prof gc} for the bytes
 * allocated per answer:
 *
 * <pre>
 * java -jar benchmarks/target/sluice-benchmarks.jar AnswerReadingBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class AnswerReadingBenchmark {

    /** An HTTP client's reads of the body: the first with the headers' packet, the rest after. */
    static final int FIRST_READ_BYTES = 1_200;

    private static final TokenEstimator ESTIMATOR = StreamUsageBenchmark.ESTIMATOR;

    @Param({"announced", "chunked"})
    public String length;

    private final OpenAiAdapter adapter = new OpenAiAdapter();
    private RequestFacts facts;
    private Map<String, List<String>> rawHeaders;
    private byte[] answer;

    @Setup
    public void setUp() {
        facts = RequestFacts.builder("openai").model("gpt-4o-mini").build();
        answer = answer();
        rawHeaders = headers(answer.length);
        if (length.equals("chunked")) {
            rawHeaders.remove("Content-Length");
            rawHeaders.put("Transfer-Encoding", List.of("chunked"));
        }
    }

    static byte[] answer() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 360; i++) {
            text.append(" word").append(i % 10);
        }
        String json = "{\"id\":\"chatcmpl-sim-1\",\"object\":\"chat.completion\",\"created\":1764633600,"
                + "\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"" + text + "\",\"refusal\":null,\"annotations\":[]},\"logprobs\":null,"
                + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":2048,\"completion_tokens\":360,"
                + "\"total_tokens\":2408,\"prompt_tokens_details\":{\"cached_tokens\":0,\"audio_tokens\":0},"
                + "\"completion_tokens_details\":{\"reasoning_tokens\":0,\"audio_tokens\":0,"
                + "\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}},"
                + "\"service_tier\":\"default\",\"system_fingerprint\":\"fp_sluice_sim\"}";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, List<String>> headers(int contentLength) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        h.put("Date", List.of("Thu, 03 Dec 2026 19:00:00 GMT"));
        h.put("Content-Type", List.of("application/json"));
        h.put("Content-Length", List.of(Integer.toString(contentLength)));
        h.put("Connection", List.of("keep-alive"));
        h.put("access-control-expose-headers", List.of("X-Request-ID"));
        h.put("openai-organization", List.of("org-sluice-bench"));
        h.put("openai-processing-ms", List.of("412"));
        h.put("openai-project", List.of("proj_sluice_bench"));
        h.put("openai-version", List.of("2020-10-01"));
        h.put("x-envoy-upstream-service-time", List.of("415"));
        h.put("x-ratelimit-limit-requests", List.of("10000"));
        h.put("x-ratelimit-limit-tokens", List.of("2000000"));
        h.put("x-ratelimit-remaining-requests", List.of("9999"));
        h.put("x-ratelimit-remaining-tokens", List.of("1997590"));
        h.put("x-ratelimit-reset-requests", List.of("6ms"));
        h.put("x-ratelimit-reset-tokens", List.of("72ms"));
        h.put("x-request-id", List.of("req_5f0c6e2b9a0d4c1e8f7a6b5c4d3e2f10"));
        h.put("strict-transport-security", List.of("max-age=31536000; includeSubDomains; preload"));
        h.put("cf-cache-status", List.of("DYNAMIC"));
        h.put(
                "set-cookie",
                List.of(
                        "__cf_bm=abc; path=/; expires=Thu, 03-Dec-26 19:30:00 GMT; domain=.api.openai.com; HttpOnly; Secure",
                        "_cfuvid=def; path=/; domain=.api.openai.com; HttpOnly; Secure; SameSite=None"));
        h.put("x-content-type-options", List.of("nosniff"));
        h.put("server", List.of("cloudflare"));
        h.put("cf-ray", List.of("8e0f1a2b3c4d5e6f-CDG"));
        h.put("alt-svc", List.of("h3=\":443\"; ma=86400"));
        return h;
    }

    @Benchmark
    public Usage readAnswer(Blackhole hole) {
        Headers headers = Headers.of(rawHeaders);
        RateLimitSnapshot limits = adapter.readRateLimits(headers, 1_764_788_400_000L);
        hole.consume(limits);
        hole.consume(adapter.organization(headers));
        UsageParser parser = OpenAiUsage.parser(facts, headers, ESTIMATOR, 0);
        int first = Math.min(FIRST_READ_BYTES, answer.length);
        parser.accept(answer, 0, first);
        parser.accept(answer, first, answer.length - first);
        parser.finish();
        hole.consume(parser.responseModel());
        return parser.usage();
    }
}
