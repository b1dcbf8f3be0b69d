package dev.sluice.core.jmx;

import dev.sluice.core.exchange.ExchangeGovernance;
import dev.sluice.core.exchange.ProviderCounters;
import dev.sluice.core.quota.ProviderScope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The {@link ProviderMXBean} of one provider: its answers, pauses, estimates and retry budgets. */
final class ProviderBean implements ProviderMXBean {

    static final int MAX_ROWS = 50;

    private static final ProviderCounters NONE = new ProviderCounters();

    private final SluiceMBeans beans;
    private final String provider;

    ProviderBean(SluiceMBeans beans, String provider) {
        this.beans = beans;
        this.provider = provider;
    }

    private ProviderCounters counters() {
        ProviderCounters c = beans.governance().allCounters().get(provider);
        return c == null ? NONE : c;
    }

    private List<ProviderScope> scopes() {
        List<ProviderScope> mine = new ArrayList<>();
        for (ProviderScope s : beans.controls().providerScopes()) {
            if (!s.isEvicted() && provider.equals(SluiceMBeans.providerOf(s))) {
                mine.add(s);
            }
        }
        return mine;
    }

    @Override
    public String getName() {
        return provider;
    }

    @Override
    public long getCalls() {
        return counters().calls();
    }

    @Override
    public long getAttempts() {
        return counters().attempts();
    }

    @Override
    public long getRetries() {
        return counters().retries();
    }

    @Override
    public long getLocalRejections() {
        return counters().localRejections();
    }

    @Override
    public long getStatus429() {
        return counters().status429();
    }

    @Override
    public long getStatus503() {
        return counters().status503();
    }

    @Override
    public long getStatus529() {
        return counters().status529();
    }

    @Override
    public long getOtherErrors() {
        return counters().otherErrors();
    }

    @Override
    public long getConnectionFailures() {
        return counters().connectionFailures();
    }

    @Override
    public long getStreamErrors() {
        return counters().streamErrors();
    }

    @Override
    public long getRetryBudgetExhausted() {
        return counters().retryBudgetExhausted();
    }

    @Override
    public long getFaults() {
        return counters().faults();
    }

    @Override
    public long getInputTokens() {
        return counters().inputTokens();
    }

    @Override
    public long getOutputTokens() {
        return counters().outputTokens();
    }

    @Override
    public String getPausedUntil() {
        long millis = getPausedForMillis();
        return millis == 0
                ? ""
                : Instant.ofEpochMilli(beans.governor().clock().epochMillis() + millis)
                        .toString();
    }

    @Override
    public long getPausedForMillis() {
        long longest = 0;
        long nowNanos = beans.governor().clock().nanoTime();
        for (ProviderScope s : scopes()) {
            longest = Math.max(longest, pausedForMillis(s, nowNanos));
        }
        return longest;
    }

    private static long pausedForMillis(ProviderScope s, long nowNanos) {
        long until = s.pausedUntilNanos();
        return until != 0 && until - nowNanos > 0 ? (until - nowNanos + 999_999) / 1_000_000 : 0;
    }

    @Override
    public double getInputEstimateError() {
        double worst = 0;
        for (ProviderScope s : scopes()) {
            worst = Math.max(worst, estimateError(s));
        }
        return worst;
    }

    private double estimateError(ProviderScope s) {
        String model = SluiceMBeans.modelOf(s);
        return model == null ? 0 : beans.governance().estimator().inputEstimateError(model);
    }

    @Override
    public double getRetryBudgetRemaining() {
        ExchangeGovernance g = beans.governance();
        List<ProviderScope> scopes = scopes();
        if (scopes.isEmpty()) {
            return g.retryBudgetRemaining(provider + "|-|-"); // an untouched budget: the floor
        }
        double least = Double.MAX_VALUE;
        for (ProviderScope s : scopes) {
            least = Math.min(least, g.retryBudgetRemaining(s.key()));
        }
        return least;
    }

    @Override
    public int getScopeCount() {
        return scopes().size();
    }

    @Override
    public List<ScopeRow> getScopes() {
        long nowNanos = beans.governor().clock().nanoTime();
        List<ProviderScope> scopes = scopes();
        scopes.sort(Comparator.comparing(ProviderScope::displayName));
        List<ScopeRow> rows = new ArrayList<>();
        for (ProviderScope s : scopes) {
            if (rows.size() == MAX_ROWS) {
                break;
            }
            String model = SluiceMBeans.modelOf(s);
            rows.add(new ScopeRow(
                    s.displayName(),
                    SluiceMBeans.apiKeyOf(s),
                    SluiceMBeans.organizationOf(s),
                    model == null ? "" : model,
                    pausedForMillis(s, nowNanos),
                    beans.governance().retryBudgetRemaining(s.key()),
                    estimateError(s),
                    s.learnedBuckets().length,
                    s.externalShare(),
                    s.paceFromRefusals()));
        }
        return rows;
    }
}
