package dev.sluice.core.provider.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonFields;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalRejectionWriterTest {

    static final Rejection FULL = Rejection.builder(GatewayDecision.QUEUE_DEADLINE_EXCEEDED)
            .limiter(Dimension.OUTPUT_TOKENS)
            .scope("openai/prod/tenant=search")
            .provider("openai")
            .model("gpt-4o-mini")
            .trafficClass("interactive")
            .tenant("search")
            .apiKeyId("k_3f9a1c")
            .retryAfterMillis(2400)
            .estimatedInputTokens(4200)
            .estimatedOutputTokens(800)
            .waitedMillis(300)
            .queueReason("deadline")
            .traceId("t-1")
            .detail("needs 4200, 1900 free, refills in 2.4 s")
            .build();

    static LocalAnswer answer(Rejection r, RequestFacts facts) {
        return LocalRejectionWriter.answer(r, facts, (json, rejection, f) -> {
            json.writeStartObject();
            LocalRejectionWriter.writeSluiceField(json, rejection, f);
            json.writeEndObject();
        });
    }

    @Test
    void writesEveryFieldOfTheSluiceObject() {
        byte[] body = answer(FULL, null).body();
        assertThat(JsonFields.pick(
                        body,
                        "sluice.type",
                        "sluice.gateway_decision",
                        "sluice.limiter",
                        "sluice.scope",
                        "sluice.provider",
                        "sluice.model",
                        "sluice.traffic_class",
                        "sluice.tenant",
                        "sluice.api_key_id",
                        "sluice.retry_after_ms",
                        "sluice.estimated_input_tokens",
                        "sluice.estimated_output_tokens",
                        "sluice.queue.waited_ms",
                        "sluice.queue.reason",
                        "sluice.trace_id"))
                .containsEntry("sluice.type", "rate_limited")
                .containsEntry("sluice.gateway_decision", "queue_deadline_exceeded")
                .containsEntry("sluice.limiter", "output_tokens")
                .containsEntry("sluice.scope", "openai/prod/tenant=search")
                .containsEntry("sluice.provider", "openai")
                .containsEntry("sluice.model", "gpt-4o-mini")
                .containsEntry("sluice.traffic_class", "interactive")
                .containsEntry("sluice.tenant", "search")
                .containsEntry("sluice.api_key_id", "k_3f9a1c")
                .containsEntry("sluice.retry_after_ms", "2400")
                .containsEntry("sluice.estimated_input_tokens", "4200")
                .containsEntry("sluice.estimated_output_tokens", "800")
                .containsEntry("sluice.queue.waited_ms", "300")
                .containsEntry("sluice.queue.reason", "deadline")
                .containsEntry("sluice.trace_id", "t-1");
    }

    @Test
    void leavesNullsOutAndFallsBackToTheRequestFacts() {
        RequestFacts facts = RequestFacts.builder("openai")
                .model("gpt-4o")
                .apiKeyId("k_abcdef")
                .estimatedInputTokens(50)
                .build();
        String body = new String(
                answer(Rejection.builder(GatewayDecision.PAUSED).build(), facts).body(), StandardCharsets.UTF_8);
        assertThat(body)
                .isEqualTo("{\"sluice\":{\"type\":\"rate_limited\",\"gateway_decision\":\"paused\","
                        + "\"provider\":\"openai\",\"model\":\"gpt-4o\",\"api_key_id\":\"k_abcdef\",\"retry_after_ms\":0,"
                        + "\"estimated_input_tokens\":50,\"estimated_output_tokens\":0}}");
    }

    @Test
    void headersTellTheSdkNotToRetryAndTheAppWhenToComeBack() {
        LocalAnswer a = answer(FULL, null);
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers())
                .containsEntry("content-type", List.of("application/json"))
                .containsEntry("retry-after", List.of("3"))
                .containsEntry("retry-after-ms", List.of("2400"))
                .containsEntry("x-should-retry", List.of("false"))
                .containsEntry("x-sluice-decision", List.of("queue_deadline_exceeded"));
        assertThat(LocalRejectionWriter.ceilSeconds(1000)).isEqualTo(1);
        assertThat(LocalRejectionWriter.ceilSeconds(1001)).isEqualTo(2);
        assertThat(LocalRejectionWriter.ceilSeconds(0)).isZero();
    }

    @Test
    void aFailingEnvelopeStillAnswers() {
        LocalAnswer a = LocalRejectionWriter.answer(FULL, null, (json, r, f) -> {
            throw new IllegalStateException("bug");
        });
        assertThat(a.status()).isEqualTo(429);
        assertThat(JsonFields.pick(a.body(), "error.sluice.gateway_decision"))
                .containsEntry("error.sluice.gateway_decision", "queue_deadline_exceeded");
    }

    @Test
    void aMissingRejectionStillAnswers() {
        LocalAnswer a = answer(null, null);
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers()).containsEntry("x-sluice-decision", List.of("rejected_locally"));
    }

    @Test
    void summaryReadsWithoutTheSource() {
        assertThat(LocalRejectionWriter.summary(FULL, null))
                .isEqualTo("Rate limited by Sluice: queue deadline exceeded for gpt-4o-mini on output_tokens "
                        + "(scope openai/prod/tenant=search): needs 4200, 1900 free, refills in 2.4 s; "
                        + "waited 300 ms in the interactive queue (deadline).");
        assertThat(LocalRejectionWriter.waitingHelps(FULL)).isTrue();
        assertThat(LocalRejectionWriter.waitingHelps(
                        FULL.toBuilder().retryAfterMillis(0).build()))
                .isFalse();
    }

    @Test
    void aBudgetRefusalCarriesTheBudgetAndNeverSaysToTryAgainSoon() {
        long resets = java.time.Instant.parse("2026-12-01T23:00:00Z").toEpochMilli();
        dev.sluice.core.BudgetStatus budget = new dev.sluice.core.BudgetStatus(
                "daily-budget",
                "tenant=search",
                "EUR",
                "day",
                5_000_000,
                4_950_000,
                30_000,
                resets - 86_400_000,
                resets);
        Rejection r = Rejection.builder(GatewayDecision.BUDGET_EXHAUSTED)
                .limiter(Dimension.SPEND)
                .scope("sluice/tenant=search")
                .retryAfterMillis(9 * 3_600_000L)
                .budget(budget)
                .detail("this call may cost up to 0.04 EUR, 0.02 EUR left; " + budget.describe())
                .build();
        LocalAnswer answer = answer(r, null);
        assertThat(JsonFields.pick(
                        answer.body(),
                        "sluice.gateway_decision",
                        "sluice.budget.limit",
                        "sluice.budget.scope",
                        "sluice.budget.currency",
                        "sluice.budget.period",
                        "sluice.budget.amount",
                        "sluice.budget.spent",
                        "sluice.budget.reserved",
                        "sluice.budget.left",
                        "sluice.budget.left_micros",
                        "sluice.budget.resets_at"))
                .containsEntry("sluice.gateway_decision", "budget_exhausted")
                .containsEntry("sluice.budget.limit", "daily-budget")
                .containsEntry("sluice.budget.scope", "tenant=search")
                .containsEntry("sluice.budget.currency", "EUR")
                .containsEntry("sluice.budget.period", "day")
                .containsEntry("sluice.budget.amount", "5.0")
                .containsEntry("sluice.budget.spent", "4.95")
                .containsEntry("sluice.budget.reserved", "0.03")
                .containsEntry("sluice.budget.left", "0.02")
                .containsEntry("sluice.budget.left_micros", "20000")
                .containsEntry("sluice.budget.resets_at", "2026-12-01T23:00:00Z");
        assertThat(answer.headers().get("x-should-retry")).containsExactly("false");
        assertThat(LocalRejectionWriter.waitingHelps(r)).isFalse();
        assertThat(LocalRejectionWriter.summary(r, null))
                .startsWith("Budget exhausted in Sluice on spend (scope sluice/tenant=search): this call may cost")
                .contains("spent 4.95 EUR of 5.00 EUR this day", "resets at 2026-12-01T23:00:00Z");
    }
}
