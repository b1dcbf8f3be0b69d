package dev.sluice.core.provider.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.retry.OutcomeClass;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RefusalAnnotationTest {

    private static final Rejection BUDGET = Rejection.builder(GatewayDecision.RETRY_BUDGET_EXHAUSTED)
            .provider("openai")
            .model("gpt-4o-mini")
            .retryAfterMillis(333)
            .build();

    private static String annotate(String body, OutcomeClass outcome) {
        byte[] out = RefusalAnnotation.annotate(body.getBytes(StandardCharsets.UTF_8), BUDGET, null, outcome);
        return out == null ? null : new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void goesInsideOpenAisErrorObjectWhereTheSdkKeepsIt() {
        String out = annotate(
                "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"param\":null,"
                        + "\"code\":\"rate_limit_exceeded\"}}",
                OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(out)
                .startsWith("{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"param\":null,"
                        + "\"code\":\"rate_limit_exceeded\",\"sluice\":{\"type\":\"rate_limited\","
                        + "\"gateway_decision\":\"retry_budget_exhausted\"");
        assertThat(out).endsWith("}}}");
    }

    @Test
    void anthropicsEnvelopeKeepsItsOtherFields() {
        String out = annotate(
                "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"x\","
                        + "\"details\":{\"error\":{\"a\":1}}},\"request_id\":\"req_1\"}",
                OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(out)
                .contains("\"details\":{\"error\":{\"a\":1}},\"sluice\":{\"type\":\"policy\"")
                .endsWith(",\"request_id\":\"req_1\"}");
    }

    @Test
    void vertexsOneElementArray() {
        String out = annotate(
                "[{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\"}}]", OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(out)
                .startsWith("[{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"sluice\":{")
                .endsWith("}}]");
    }

    @Test
    void noErrorObjectMeansTheTopLevelObject() {
        assertThat(annotate("{\"detail\":\"overloaded\"}", OutcomeClass.RETRYABLE_OVERLOAD))
                .startsWith("{\"detail\":\"overloaded\",\"sluice\":{\"type\":\"overloaded\"");
    }

    @Test
    void leavesAloneWhatItCannotOrNeedNotAnnotate() {
        assertThat(annotate("upstream connect error", OutcomeClass.RETRYABLE_OVERLOAD))
                .isNull();
        assertThat(annotate("{\"error\":{\"sluice\":{\"type\":\"rate_limited\"}}}", OutcomeClass.RETRYABLE_CAPACITY))
                .isNull();
        assertThat(annotate("{\"error\":", OutcomeClass.RETRYABLE_CAPACITY)).isNull();
        assertThat(RefusalAnnotation.annotate(new byte[0], BUDGET, null, OutcomeClass.RETRYABLE_CAPACITY))
                .isNull();
    }
}
