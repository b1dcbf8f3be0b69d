package dev.sluice.core.jmx;

import java.util.List;

/**
 * {@code dev.sluice:type=Provider,name=<provider>}: what one provider answered, its pauses, how
 * good Sluice's estimates are and how much retry budget is left.
 */
public interface ProviderMXBean {

    String getName();

    @Description("Logical calls seen")
    long getCalls();

    @Description("Attempts sent to the provider")
    long getAttempts();

    @Description("Attempts beyond the first of their call")
    long getRetries();

    @Description("Calls Sluice answered itself with a local rejection")
    long getLocalRejections();

    @Description("429 answers from the provider (rate limited)")
    long getStatus429();

    @Description("503 answers from the provider (unavailable)")
    long getStatus503();

    @Description("529 answers from the provider (overloaded)")
    long getStatus529();

    @Description("Other error answers from the provider")
    long getOtherErrors();

    @Description("Attempts that failed before a response (reset, timeout)")
    long getConnectionFailures();

    @Description("Errors inside an otherwise successful response (mid-stream overload)")
    long getStreamErrors();

    @Description("Retries not made because the scope's retry budget was spent")
    long getRetryBudgetExhausted();

    @Description("Faults inside Sluice while governing this provider's calls (each let the call through)")
    long getFaults();

    @Description("Input tokens the provider reported")
    long getInputTokens();

    @Description("Output tokens the provider reported")
    long getOutputTokens();

    @Description("Until when the provider asked (one of) its scopes to wait, ISO-8601 UTC; empty when open")
    String getPausedUntil();

    @Description("How much longer the longest pause lasts, in milliseconds; 0 when open")
    long getPausedForMillis();

    @Description("Worst input estimate error over the provider's models: |learned correction - 1|")
    double getInputEstimateError();

    @Description("Retries the scope with the least budget may still spend now")
    double getRetryBudgetRemaining();

    @Description("Provider scopes (key and model) known now")
    int getScopeCount();

    @Description("Per scope: pause, retry budget left, estimate error, limits learned (at most 50)")
    List<ScopeRow> getScopes();
}
