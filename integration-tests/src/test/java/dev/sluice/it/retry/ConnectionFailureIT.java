package dev.sluice.it.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.harness.Figures;
import dev.sluice.it.retry.RetryRun.Sdk;
import org.junit.jupiter.api.Test;

/**
 * Every attempt's connection is reset before a response. Sluice retries the reset itself and then
 * ends the call with the IOException; no other layer may send it again: not openai-java's
 * {@code RetryingHttpClient} (which retries IOExceptions, 3 x 3 attempts without the neutraliser),
 * even for a client built before a late attach, and not google-genai's interceptor nor OkHttp's
 * {@code retryOnConnectionFailure} (5 per attempt and more).
 */
class ConnectionFailureIT {

    @Test
    void openAiLateAttachDoesNotRetrySluicesFinalFailure() throws Exception {
        RetryRun run = RetryRun.run(Sdk.OPENAI, true, 0, 2, 2, "connection_reset", true);
        run.record("connection reset, late attach");
        assertThat(run.attempts().getMax()).as("%s", run).isLessThanOrEqualTo(3);
        assertThat(run.counter("layer:openai-java:declined")).as("%s", run).isPositive();
        assertThat(run.completed()).as("%s", run).isZero();
    }

    /**
     * The run without the agent (the SDK's own retries: more than 3 attempts a call, figures for
     * docs/retries.md) is the test's premise, not Sluice's behaviour, and slow (the SDK's backoff):
     * it runs with {@code -Dsluice.figures=true} only ({@link Figures}). That the interceptor would
     * retry is also shown with the agent: its retries Sluice declined are counted.
     */
    @Test
    void genAiInterceptorAndOkHttpConnectionRetriesStandAside() throws Exception {
        if (Figures.enabled()) {
            RetryRun own = RetryRun.run(Sdk.GENAI, false, 0, 2, 2, "connection_reset", false);
            own.record("connection reset");
            assertThat(own.attempts().getMax()).as("%s", own).isGreaterThan(3);
        }
        RetryRun run = RetryRun.run(Sdk.GENAI, true, 0, 2, 2, "connection_reset", false);
        run.record("connection reset");
        assertThat(run.attempts().getMax()).as("%s", run).isLessThanOrEqualTo(3);
        assertThat(run.counter("layer:google-genai:declined")).as("%s", run).isPositive();
    }

    /** The same with the SDKs in a child class loader: the genai helper is defined next to that copy. */
    @Test
    void neutralisersWorkWithTheSdkInAChildClassLoader() throws Exception {
        RetryRun genai = RetryRun.run(
                ChildLoaderApp.class, Sdk.GENAI, true, 0, false, 2, 2, "connection_reset", false, "enforce");
        genai.record("connection reset, SDK in a child class loader");
        assertThat(genai.counter("child-loader")).as("%s", genai).isOne();
        assertThat(genai.attempts().getMax()).as("%s", genai).isLessThanOrEqualTo(3);
        assertThat(genai.counter("layer:google-genai:declined")).as("%s", genai).isPositive();

        RetryRun openai = RetryRun.run(
                ChildLoaderApp.class, Sdk.OPENAI, true, 0, false, 2, 2, "connection_reset", false, "enforce");
        openai.record("connection reset, SDK in a child class loader");
        assertThat(openai.counter("child-loader")).as("%s", openai).isOne();
        assertThat(openai.attempts().getMax()).as("%s", openai).isLessThanOrEqualTo(3);
        assertThat(openai.counter("layer:openai-java:declined"))
                .as("%s", openai)
                .isPositive();
    }
}
