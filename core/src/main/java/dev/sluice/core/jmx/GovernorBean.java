package dev.sluice.core.jmx;

import dev.sluice.bootstrap.RetryLayers;
import dev.sluice.config.FailMode;
import dev.sluice.config.Mode;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorControls;
import dev.sluice.core.GovernorStats;
import dev.sluice.core.telemetry.Decision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The {@link GovernorMXBean} of a running Sluice. */
final class GovernorBean implements GovernorMXBean {

    /** Most decisions one call returns (the log keeps about a thousand). */
    static final int MAX_DECISIONS = 1_000;

    private final SluiceMBeans beans;
    private final Governor governor;
    private final GovernorControls controls;

    GovernorBean(SluiceMBeans beans) {
        this.beans = beans;
        this.governor = beans.governor();
        this.controls = governor.controls();
    }

    @Override
    public String getMode() {
        return governor.mode().configName();
    }

    @Override
    public void setMode(String mode) {
        Mode m = Mode.fromConfigName(mode == null ? null : mode.trim().toLowerCase(Locale.ROOT));
        if (m == null) {
            throw new IllegalArgumentException("mode must be enforce, observe or off; was '" + mode + "'");
        }
        controls.setMode(m);
        beans.changed();
    }

    @Override
    public long getFaults() {
        return beans.governance().faultCount();
    }

    @Override
    public long getUnpricedCalls() {
        return beans.governance().unpricedCalls();
    }

    @Override
    public Map<String, Long> getUnpricedModels() {
        return beans.governance().unpricedModels();
    }

    @Override
    public String getPriceTables() {
        String tables = beans.governance().priceTables();
        return tables == null ? "" : tables;
    }

    @Override
    public String getFailMode() {
        return beans.governance().failMode().configName();
    }

    @Override
    public void setFailMode(String failMode) {
        FailMode f = FailMode.fromConfigName(
                failMode == null ? null : failMode.trim().toLowerCase(Locale.ROOT));
        if (f == null) {
            throw new IllegalArgumentException("failMode must be open or closed; was '" + failMode + "'");
        }
        beans.governance().setFailMode(f);
    }

    @Override
    public long getAdmitted() {
        return governor.stats().admitted();
    }

    @Override
    public long getSettled() {
        return governor.stats().settled();
    }

    @Override
    public long getRejected() {
        return governor.stats().rejected();
    }

    @Override
    public Map<String, Long> getRejectionsByReason() {
        GovernorStats stats = governor.stats();
        Map<String, Long> byReason = new LinkedHashMap<>();
        for (GatewayDecision d : GatewayDecision.values()) {
            byReason.put(d.wireName(), stats.rejected(d));
        }
        return byReason;
    }

    @Override
    public Map<String, Long> getObservedWouldDelay() {
        GovernorStats stats = governor.stats();
        Map<String, Long> byReason = new LinkedHashMap<>();
        for (GatewayDecision d : GatewayDecision.values()) {
            byReason.put(d.wireName(), stats.observedWouldDelay(d));
        }
        return byReason;
    }

    @Override
    public int getWaiting() {
        return beans.view().now().waiting();
    }

    @Override
    public int getInFlight() {
        return beans.view().now().inFlight;
    }

    @Override
    public long getLeaseExpired() {
        return governor.stats().leaseExpired();
    }

    @Override
    public long getProviderPauses() {
        return governor.stats().providerPauses();
    }

    @Override
    public long getColdStarts() {
        return governor.stats().coldStarts();
    }

    @Override
    public Map<String, Long> getRetryLayers() {
        Map<String, Long> flat = new TreeMap<>();
        RetryLayers.snapshot().forEach((layer, counts) -> counts.forEach((what, n) -> flat.put(layer + "." + what, n)));
        return flat;
    }

    @Override
    public Map<String, Long> getFallbacks() {
        return beans.governance().fallbacks().counts().moves();
    }

    @Override
    public Map<String, Long> getRouteAnswers() {
        return beans.governance().fallbacks().counts().served();
    }

    @Override
    public Map<String, Long> getUngovernedConnections() {
        return new TreeMap<>(dev.sluice.bootstrap.Connections.ungoverned());
    }

    @Override
    public String[] getPausedTenants() {
        return new TreeSet<>(controls.pausedTenants()).toArray(new String[0]);
    }

    @Override
    public String[] getPausedApiKeys() {
        return new TreeSet<>(controls.pausedApiKeys()).toArray(new String[0]);
    }

    @Override
    public String getConfigOrigin() {
        return beans.reload().origin();
    }

    @Override
    public String pauseTenant(String tenant) {
        String t = required("tenant", tenant);
        boolean was = controls.pausedTenants().contains(t);
        controls.pauseTenant(t);
        beans.changed();
        return was
                ? "tenant " + t + " was already paused"
                : "tenant " + t + " paused: its calls are rejected with 'paused' until resumed";
    }

    @Override
    public String resumeTenant(String tenant) {
        String t = required("tenant", tenant);
        if (!controls.pausedTenants().contains(t)) {
            return "tenant " + t + " was not paused";
        }
        controls.resumeTenant(t);
        beans.changed();
        return "tenant " + t + " resumed";
    }

    @Override
    public String pauseApiKey(String apiKeyId) {
        String k = required("apiKeyId", apiKeyId);
        boolean was = controls.pausedApiKeys().contains(k);
        controls.pauseApiKey(k);
        beans.changed();
        return was
                ? "API key " + k + " was already paused"
                : "API key " + k + " paused: its calls are rejected with 'paused' until resumed";
    }

    @Override
    public String resumeApiKey(String apiKeyId) {
        String k = required("apiKeyId", apiKeyId);
        if (!controls.pausedApiKeys().contains(k)) {
            return "API key " + k + " was not paused";
        }
        controls.resumeApiKey(k);
        beans.changed();
        return "API key " + k + " resumed";
    }

    @Override
    public String reloadConfig() {
        try {
            return beans.reload().reload();
        } finally {
            beans.changed();
        }
    }

    @Override
    public String describeLimits() {
        return LimitsTable.render(beans);
    }

    @Override
    public String[] recentDecisions(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be >= 1, was " + n);
        }
        List<String> lines = new ArrayList<>();
        for (Decision d : governor.stats().decisions().recent(Math.min(n, MAX_DECISIONS))) {
            lines.add(d.toString());
        }
        return lines.toArray(new String[0]);
    }

    static String required(String what, String value) {
        if (value == null || value.trim().isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value.trim();
    }
}
