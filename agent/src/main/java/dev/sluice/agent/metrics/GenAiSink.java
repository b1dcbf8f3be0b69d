package dev.sluice.agent.metrics;

/**
 * Where the GenAI instruments are recorded besides the Prometheus endpoint: the application's
 * OpenTelemetry meters ({@link OpenTelemetryBridge}). Attribute sets are built once per distinct
 * set of values and kept by the caller, so a call records with no attribute built.
 */
interface GenAiSink {

    /**
     * An attribute set of the sink's own kind, built once. {@code null} values are left out.
     *
     * @param names the conventions' attribute names ({@code gen_ai.token.type})
     */
    Object attributes(String[] names, String[] values);

    /** One call's tokens of one kind on {@code gen_ai.client.token.usage}. */
    void recordTokens(long tokens, Object attributes);

    /** One call's duration on {@code gen_ai.client.operation.duration}. */
    void recordDuration(double seconds, Object attributes);
}
