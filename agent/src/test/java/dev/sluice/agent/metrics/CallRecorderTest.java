package dev.sluice.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Usage;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What one call's end puts in the GenAI histograms and Sluice's per-call series. */
class CallRecorderTest {

    private final PrometheusRegistry registry = new PrometheusRegistry();

    private static CallContext anthropic(String model) {
        return CallContext.builder("claude")
                .providerKind("anthropic")
                .model(model)
                .operation("messages")
                .build();
    }

    private static Usage usage() {
        // Anthropic's input leaves cache reads out: 300 uncached + 100 written to the cache, 600 read from it
        return Usage.builder()
                .inputTokens(400)
                .cacheCreationInputTokens(100)
                .cachedInputTokens(600)
                .outputTokens(50)
                .reasoningTokens(20)
                .reportedByProvider(true)
                .build();
    }

    private String scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void inputTokensCountCachedReadsAsTheConventionsDo() throws IOException {
        CallRecorder r = new CallRecorder(registry, null, false);
        Demand estimated = Demand.builder().inputTokens(500).outputTokens(200).build();
        r.callEnded(
                anthropic("claude-sonnet-4-5"), 1_500_000_000L, usage(), "claude-sonnet-4-5-20250929", estimated, null);
        String s = scrape();
        String route = "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"anthropic\","
                + "gen_ai_request_model=\"claude-sonnet-4-5\",gen_ai_response_model=\"claude-sonnet-4-5-20250929\"";
        assertThat(s)
                .contains("gen_ai_client_token_usage_sum{" + route + ",gen_ai_token_type=\"input\"} 1000.0")
                .contains("gen_ai_client_token_usage_sum{" + route + ",gen_ai_token_type=\"output\"} 50.0")
                // a success's error_type is empty, which Prometheus stores as no label at all
                .contains(
                        "gen_ai_client_operation_duration_seconds_bucket{error_type=\"\"," + route + ",le=\"1.28\"} 0")
                .contains(
                        "gen_ai_client_operation_duration_seconds_bucket{error_type=\"\"," + route + ",le=\"2.56\"} 1")
                .contains("sluice_estimated_tokens_total{gen_ai_token_type=\"input\",provider=\"claude\"} 500.0")
                .contains("sluice_reported_tokens_total{gen_ai_token_type=\"input\",provider=\"claude\"} 400.0")
                .contains("sluice_usage_detail_tokens_total{provider=\"claude\",type=\"cache_read\"} 600.0")
                .contains("sluice_calls_total{outcome=\"success\",provider=\"claude\"} 1.0")
                .doesNotContain("gen_ai_token_cache");
    }

    @Test
    void theDraftSplitPartitionsTheTotals() throws IOException {
        CallRecorder r = new CallRecorder(registry, null, true);
        r.callEnded(anthropic("claude-sonnet-4-5"), 1_000_000L, usage(), null, Demand.oneRequest(), null);
        String s = scrape();
        assertThat(s)
                .containsPattern(
                        "gen_ai_token_cache=\"read\",gen_ai_token_reasoning=\"\",gen_ai_token_type=\"input\"\\} 600.0")
                .containsPattern(
                        "gen_ai_token_cache=\"creation\",gen_ai_token_reasoning=\"\",gen_ai_token_type=\"input\"\\} 100.0")
                .containsPattern(
                        "gen_ai_token_cache=\"uncached\",gen_ai_token_reasoning=\"\",gen_ai_token_type=\"input\"\\} 300.0")
                .containsPattern(
                        "gen_ai_token_cache=\"\",gen_ai_token_reasoning=\"true\",gen_ai_token_type=\"output\"\\} 20.0")
                .containsPattern(
                        "gen_ai_token_cache=\"\",gen_ai_token_reasoning=\"false\",gen_ai_token_type=\"output\"\\} 30.0");
    }

    @Test
    void errorsRefusalsAndModelsStayBounded() throws IOException {
        CallRecorder r = new CallRecorder(registry, null, false);
        CallContext call = anthropic("m");
        r.attemptRefused(call, "claude|k_3f9a1c|m", 429, Dimension.INPUT_TOKENS, true);
        r.callEnded(call, 1_000_000L, null, null, Demand.oneRequest(), "429");
        for (int i = 0; i < CallRecorder.MAX_ROUTES + 10; i++) {
            r.callEnded(anthropic("model-" + i), 1_000_000L, null, null, Demand.oneRequest(), null);
        }
        String s = scrape();
        assertThat(s)
                .contains(
                        "sluice_provider_refusals_total{limiter=\"input_tokens\",provider=\"claude\",retried=\"true\","
                                + "scope=\"claude/k_3f9a1c/m\",status=\"429\"} 1.0")
                .contains("error_type=\"429\"")
                .contains("sluice_calls_total{outcome=\"refused\",provider=\"claude\"} 1.0")
                .contains("gen_ai_request_model=\"_OTHER\"");
        assertThat(s.split("gen_ai_client_operation_duration_seconds_count\\{", -1))
                .as("one duration series per route, the routes past the bound sharing _OTHER")
                .hasSize(CallRecorder.MAX_ROUTES + 2 + 1);
    }

    @Test
    void theModelAnAnswerNamedIsALabelBoundedAsTheRequestedModelIs() throws IOException {
        CallRecorder r = new CallRecorder(registry, null, false);
        CallContext call = anthropic("claude-sonnet-4-5");
        r.callEnded(call, 1_000_000L, usage(), "claude-sonnet-4-5-20250929", Demand.oneRequest(), null);
        r.callEnded(call, 1_000_000L, null, null, Demand.oneRequest(), "529");
        for (int i = 0; i < CallRecorder.MAX_RESPONSE_MODELS + 10; i++) {
            r.callEnded(call, 1_000_000L, usage(), "snapshot-" + i, Demand.oneRequest(), null);
        }
        String s = scrape();
        assertThat(s)
                .contains(
                        "gen_ai_request_model=\"claude-sonnet-4-5\",gen_ai_response_model=\"claude-sonnet-4-5-20250929\"")
                .contains("gen_ai_response_model=\"snapshot-0\"")
                .contains("gen_ai_response_model=\"_OTHER\"")
                // a refusal had no answer: no response model, which Prometheus stores as no label
                .containsPattern("gen_ai_client_operation_duration_seconds_count\\{error_type=\"529\",[^}]*"
                        + "gen_ai_response_model=\"\"\\} 1");
        assertThat(s.split("gen_ai_client_operation_duration_seconds_count\\{", -1))
                .as("one series per model answered, those past the bound sharing _OTHER; two for the refusal"
                        + " (its error, and the route's successes without a response model, none)")
                .hasSize(CallRecorder.MAX_RESPONSE_MODELS + 1 + 2 + 1);
    }

    @Test
    void theOpenTelemetryAttributesNameTheResponseModelWhenTheAnswerDid() {
        java.util.List<String> recorded = new java.util.ArrayList<>();
        GenAiSink sink = new GenAiSink() {
            @Override
            public Object attributes(String[] names, String[] values) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < names.length; i++) {
                    if (values[i] != null) {
                        b.append(names[i]).append('=').append(values[i]).append(' ');
                    }
                }
                return b.toString().trim();
            }

            @Override
            public void recordTokens(long tokens, Object attributes) {
                recorded.add("tokens " + tokens + " " + attributes);
            }

            @Override
            public void recordDuration(double seconds, Object attributes) {
                recorded.add("duration " + attributes);
            }
        };
        CallRecorder r = new CallRecorder(null, sink, false);
        r.callEnded(
                anthropic("claude-sonnet-4-5"),
                1_000_000L,
                usage(),
                "claude-sonnet-4-5-20250929",
                Demand.oneRequest(),
                null);
        r.callEnded(anthropic("claude-sonnet-4-5"), 1_000_000L, null, null, Demand.oneRequest(), "529");
        String route =
                "gen_ai.operation.name=chat gen_ai.provider.name=anthropic gen_ai.request.model=claude-sonnet-4-5";
        assertThat(recorded)
                .containsExactly(
                        "duration " + route + " gen_ai.response.model=claude-sonnet-4-5-20250929",
                        "tokens 1000 " + route
                                + " gen_ai.response.model=claude-sonnet-4-5-20250929 gen_ai.token.type=input",
                        "tokens 50 " + route
                                + " gen_ai.response.model=claude-sonnet-4-5-20250929 gen_ai.token.type=output",
                        "duration " + route + " error.type=529");
    }
}
