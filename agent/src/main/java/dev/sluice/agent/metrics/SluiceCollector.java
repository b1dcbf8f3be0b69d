package dev.sluice.agent.metrics;

import dev.sluice.core.jmx.BudgetMXBean;
import dev.sluice.core.jmx.GovernorMXBean;
import dev.sluice.core.jmx.LimitMXBean;
import dev.sluice.core.jmx.MXBeanViews;
import dev.sluice.core.jmx.ProviderMXBean;
import dev.sluice.core.jmx.ScopeRow;
import dev.sluice.core.jmx.TenantMXBean;
import dev.sluice.core.jmx.TrafficClassMXBean;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.Set;

/**
 * Sluice's own state as Prometheus series ({@code sluice_*}), read at each scrape from the figures
 * the MXBeans show ({@link MXBeanViews}: the governor's live view, read under its lock at most
 * once a second). Labels name limits, tenants (folded past {@code metrics.maxTenants}), classes,
 * providers, provider scopes (a hashed key id or an organization, never a key) and budgets.
 * docs/metrics.md lists every series.
 */
final class SluiceCollector implements MultiCollector {

    private static final double[] QUANTILES = {0.5, 0.95, 0.99};

    private final MXBeanViews views;
    private final TenantLabels tenants;
    private final String version;

    SluiceCollector(MXBeanViews views, int maxTenants, String version) {
        this.views = views;
        this.tenants = new TenantLabels(maxTenants);
        this.version = version;
    }

    @Override
    public MetricSnapshots collect() {
        Families f = new Families();
        governor(f, views.governor());
        for (TrafficClassMXBean c : views.trafficClasses()) {
            trafficClass(f, c);
        }
        Set<String> labelled = tenants.update(views.tenantNames());
        for (String t : views.tenantNames()) {
            tenant(f, views.tenant(t), TenantLabels.label(labelled, t));
        }
        for (LimitMXBean l : views.limits()) {
            limit(f, l);
        }
        for (ProviderMXBean p : views.providers()) {
            provider(f, p);
        }
        for (BudgetMXBean b : views.budgets()) {
            budget(f, b);
        }
        return f.build();
    }

    private void governor(Families f, GovernorMXBean g) {
        f.gauge(
                "sluice_info",
                "The agent's version, mode and fail mode (always 1)",
                1,
                "version",
                version,
                "mode",
                g.getMode(),
                "fail_mode",
                g.getFailMode());
        f.counter("sluice_admitted", "Calls admitted since start", g.getAdmitted());
        f.counter("sluice_settled", "Permits settled with actual usage since start", g.getSettled());
        for (Map.Entry<String, Long> r : g.getRejectionsByReason().entrySet()) {
            f.counter(
                    "sluice_rejected",
                    "Calls Sluice refused, by gateway decision",
                    r.getValue(),
                    "decision",
                    r.getKey());
        }
        for (Map.Entry<String, Long> r : g.getObservedWouldDelay().entrySet()) {
            f.counter(
                    "sluice_observed_would_delay",
                    "In observe mode: calls enforce mode would have delayed or" + " rejected, by decision",
                    r.getValue(),
                    "decision",
                    r.getKey());
        }
        f.gauge("sluice_waiting", "Calls waiting for admission now, all classes", g.getWaiting());
        f.gauge("sluice_in_flight", "Calls admitted and not finished", g.getInFlight());
        f.counter(
                "sluice_faults",
                "Faults inside Sluice (each let its call through, or answered it in fail mode" + " closed)",
                g.getFaults());
        f.counter("sluice_lease_expired", "Permits whose lease ran out (a stream nobody closed)", g.getLeaseExpired());
        f.counter(
                "sluice_provider_pauses",
                "Times a provider asked a scope to wait, pausing it for every caller",
                g.getProviderPauses());
        f.counter(
                "sluice_cold_starts",
                "Provider scopes that started cold: their first call went alone",
                g.getColdStarts());
        f.counter(
                "sluice_unpriced_calls",
                "Calls whose model had no price (charged nothing against budgets)",
                g.getUnpricedCalls());
        for (Map.Entry<String, Long> c : g.getUngovernedConnections().entrySet()) {
            String key = c.getKey();
            int via = key.indexOf(" via ");
            String host = via < 0 ? key : key.substring(0, via);
            String client = via < 0 ? "" : key.substring(via + 5);
            f.counter(
                    "sluice_ungoverned_connections",
                    "Connections to a provider's host by a client Sluice does not" + " govern",
                    c.getValue(),
                    "host",
                    host,
                    "client",
                    client);
        }
        for (Map.Entry<String, Long> l : g.getRetryLayers().entrySet()) {
            String key = l.getKey();
            int dot = key.lastIndexOf('.');
            f.counter(
                    "sluice_retry_layer_calls",
                    "Calls through a retry layer Sluice stood in for: passed (its retries"
                            + " off) or declined (retries it would have made)",
                    l.getValue(),
                    "layer",
                    dot < 0 ? key : key.substring(0, dot),
                    "what",
                    dot < 0 ? "" : key.substring(dot + 1));
        }
    }

    private static void trafficClass(Families f, TrafficClassMXBean c) {
        String n = c.getName();
        f.gauge("sluice_class_waiting", "Calls waiting in a traffic class's queue now", c.getQueueDepth(), "class", n);
        f.gauge(
                "sluice_class_max_queue_depth",
                "How many calls a class's queue may hold",
                c.getMaxQueueDepth(),
                "class",
                n);
        f.seconds(
                "sluice_class_max_wait_seconds",
                "How long a class's call may wait",
                c.getMaxWaitMillis() / 1e3,
                "class",
                n);
        f.summary(
                "sluice_class_queue_wait_seconds",
                "Admission waits of a class's admitted calls (calls admitted at" + " once count as 0)",
                c.getAdmittedAtOnce() + c.getAdmittedAfterWaiting(),
                QUANTILES,
                new double[] {c.getWaitP50Millis() / 1e3, c.getWaitP95Millis() / 1e3, c.getWaitP99Millis() / 1e3},
                "class",
                n);
        f.seconds(
                "sluice_class_max_observed_wait_seconds",
                "The longest admission wait a class's call had",
                c.getMaxObservedWaitMillis() / 1e3,
                "class",
                n);
        String help = "What happened to a class's calls";
        f.counter("sluice_class_calls", help, c.getAdmittedAtOnce(), "class", n, "outcome", "admitted_at_once");
        f.counter(
                "sluice_class_calls",
                help,
                c.getAdmittedAfterWaiting(),
                "class",
                n,
                "outcome",
                "admitted_after_waiting");
        f.counter("sluice_class_calls", help, c.getQueued(), "class", n, "outcome", "queued");
        f.counter("sluice_class_calls", help, c.getRejected(), "class", n, "outcome", "rejected");
        f.counter("sluice_class_calls", help, c.getDeadlineExpirations(), "class", n, "outcome", "deadline_expired");
        f.counter("sluice_class_calls", help, c.getAbandoned(), "class", n, "outcome", "abandoned");
        f.counter("sluice_class_calls", help, c.getPassedThrough(), "class", n, "outcome", "passed_through");
    }

    private static void tenant(Families f, TenantMXBean t, String label) {
        f.counter("sluice_tenant_admitted", "Requests admitted, by tenant", t.getAdmitted(), "tenant", label);
        f.counter("sluice_tenant_rejected", "Calls rejected, by tenant", t.getRejected(), "tenant", label);
        f.gauge("sluice_tenant_waiting", "Calls waiting for admission now, by tenant", t.getQueued(), "tenant", label);
        f.counter(
                "sluice_tenant_wait_seconds",
                "Time a tenant's calls waited for admission",
                t.getWaitedMillis() / 1e3,
                "tenant",
                label);
        f.counter(
                "sluice_tenant_tokens",
                "Tokens used as settled, by tenant",
                t.getInputTokens(),
                "tenant",
                label,
                "type",
                "input");
        f.counter(
                "sluice_tenant_tokens",
                "Tokens used as settled, by tenant",
                t.getOutputTokens(),
                "tenant",
                label,
                "type",
                "output");
        f.counter(
                "sluice_tenant_reserved_tokens",
                "Tokens reserved at admission (estimates), by tenant",
                t.getReservedTokens(),
                "tenant",
                label);
        f.counter(
                "sluice_tenant_borrowed_tokens",
                "Tokens taken from the common pool beyond the tenant's guaranteed" + " reserve",
                t.getBorrowedTokens(),
                "tenant",
                label);
        if (!TenantLabels.OTHER.equals(label)) {
            f.gauge(
                    "sluice_tenant_paused",
                    "1 while an operator has paused the tenant",
                    t.isPaused() ? 1 : 0,
                    "tenant",
                    label);
        }
    }

    private static void limit(Families f, LimitMXBean l) {
        String[] labels = {
            "limit",
            l.getId(),
            "dimension",
            l.getDimension(),
            "window",
            l.getWindow(),
            "source",
            l.getSource(),
            "provider",
            l.getProvider()
        };
        f.gauge(
                "sluice_limit_capacity",
                "A limit's capacity per window (a learned one: what the provider announced)",
                l.getCapacity(),
                labels);
        f.gauge(
                "sluice_limit_available",
                "Room for new reservations now in the limit's tightest bucket",
                l.getAvailable(),
                labels);
        f.gauge(
                "sluice_limit_reserved",
                "Held by calls in flight and not yet settled, over the limit's buckets",
                l.getReserved(),
                labels);
        f.gauge(
                "sluice_limit_utilisation",
                "Share of the capacity in use in the limit's busiest bucket, 0..1",
                l.getUtilisation(),
                labels);
        f.gauge("sluice_limit_in_flight", "Calls admitted through the limit and not finished", l.getInFlight(), labels);
        f.gauge(
                "sluice_limit_enforced",
                "1 when the limit delays and rejects, 0 when only counted",
                l.isEnforced() ? 1 : 0,
                labels);
        if (l.getProviderLimit() >= 0) {
            f.gauge(
                    "sluice_limit_provider_limit",
                    "What the provider last announced as the limit",
                    l.getProviderLimit(),
                    labels);
        }
        if (l.getProviderRemaining() >= 0) {
            f.gauge(
                    "sluice_limit_provider_remaining",
                    "What the provider last announced as remaining",
                    l.getProviderRemaining(),
                    labels);
        }
        for (Map.Entry<String, Long> r : l.getRejectionsByReason().entrySet()) {
            f.counter(
                    "sluice_limit_rejections",
                    "Calls the limit caused to be rejected, by decision",
                    r.getValue(),
                    "limit",
                    l.getId(),
                    "decision",
                    r.getKey());
        }
    }

    private static void provider(Families f, ProviderMXBean p) {
        String n = p.getName();
        f.counter("sluice_provider_calls", "Logical calls to a provider", p.getCalls(), "provider", n);
        f.counter("sluice_provider_attempts", "Attempts sent to a provider", p.getAttempts(), "provider", n);
        f.counter("sluice_provider_retries", "Attempts beyond the first", p.getRetries(), "provider", n);
        String help = "A provider's refusals and errors, by status";
        f.counter("sluice_provider_responses", help, p.getStatus429(), "provider", n, "status", "429");
        f.counter("sluice_provider_responses", help, p.getStatus503(), "provider", n, "status", "503");
        f.counter("sluice_provider_responses", help, p.getStatus529(), "provider", n, "status", "529");
        f.counter("sluice_provider_responses", help, p.getOtherErrors(), "provider", n, "status", "other");
        f.counter(
                "sluice_provider_connection_failures",
                "Failures before a response",
                p.getConnectionFailures(),
                "provider",
                n);
        f.counter(
                "sluice_provider_stream_errors",
                "Errors inside a response (mid-stream overload)",
                p.getStreamErrors(),
                "provider",
                n);
        f.counter(
                "sluice_provider_local_rejections",
                "Calls Sluice answered itself",
                p.getLocalRejections(),
                "provider",
                n);
        f.counter(
                "sluice_provider_retry_budget_exhausted",
                "Retries not made for lack of retry budget",
                p.getRetryBudgetExhausted(),
                "provider",
                n);
        f.counter(
                "sluice_provider_faults",
                "Faults inside Sluice while governing the provider's calls",
                p.getFaults(),
                "provider",
                n);
        f.counter(
                "sluice_provider_tokens",
                "Tokens the provider reported",
                p.getInputTokens(),
                "provider",
                n,
                "type",
                "input");
        f.counter(
                "sluice_provider_tokens",
                "Tokens the provider reported",
                p.getOutputTokens(),
                "provider",
                n,
                "type",
                "output");
        f.seconds(
                "sluice_provider_paused_seconds",
                "How much longer the provider's longest pause lasts",
                p.getPausedForMillis() / 1e3,
                "provider",
                n);
        for (ScopeRow s : p.getScopes()) {
            String scope = s.getScope();
            f.gauge(
                    "sluice_scope_external_share",
                    "Share of the scope's budgets consumers Sluice cannot see are"
                            + " estimated to take (Sluice paces under the rest)",
                    s.getExternalShare(),
                    "provider",
                    n,
                    "scope",
                    scope);
            if (s.getPacedBy429sPerMinute() >= 0) {
                f.gauge(
                        "sluice_scope_paced_calls_per_minute",
                        "The pace the provider's 429s alone set, where answers" + " carry no rate-limit headers",
                        s.getPacedBy429sPerMinute(),
                        "provider",
                        n,
                        "scope",
                        scope);
            }
            f.seconds(
                    "sluice_scope_paused_seconds",
                    "How much longer the provider asked the scope to wait",
                    s.getPausedForMillis() / 1e3,
                    "provider",
                    n,
                    "scope",
                    scope);
            f.gauge(
                    "sluice_scope_retry_budget_remaining",
                    "Retries the scope may still spend now",
                    s.getRetryBudgetRemaining(),
                    "provider",
                    n,
                    "scope",
                    scope);
            f.gauge(
                    "sluice_scope_input_estimate_error",
                    "|learned input correction - 1| for the scope's model (0.1:" + " estimates 10 % off)",
                    s.getInputEstimateError(),
                    "provider",
                    n,
                    "scope",
                    scope);
        }
    }

    private static void budget(Families f, BudgetMXBean b) {
        String[] labels = {"budget", b.getId(), "currency", b.getCurrency(), "period", b.getPeriod()};
        f.gauge("sluice_budget_amount", "A spend limit's amount per period", b.getAmount(), labels);
        f.gauge("sluice_budget_spent", "Spent this period (the bucket with the least left)", b.getSpent(), labels);
        f.gauge("sluice_budget_reserved", "Reserved by calls in flight", b.getReserved(), labels);
        f.gauge("sluice_budget_left", "Left this period", b.getLeft(), labels);
        f.gauge("sluice_budget_warn_at", "The share of the amount at which the budget warns", b.getWarnAt(), labels);
        f.counter(
                "sluice_budget_exhausted_rejections",
                "Calls rejected because the budget was spent",
                b.getExhaustedRejections(),
                "budget",
                b.getId());
    }
}
