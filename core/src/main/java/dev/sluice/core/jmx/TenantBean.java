package dev.sluice.core.jmx;

import dev.sluice.config.ScopeLevel;
import dev.sluice.core.BucketView;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorControls;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.telemetry.TenantCounters;
import java.util.ArrayList;
import java.util.List;

/** The {@link TenantMXBean} of one tenant, configured or seen in calls. */
final class TenantBean implements TenantMXBean {

    private static final TenantCounters NONE = new TenantCounters();

    private final SluiceMBeans beans;
    private final Governor governor;
    private final GovernorControls controls;
    private final String tenant;

    TenantBean(SluiceMBeans beans, String tenant) {
        this.beans = beans;
        this.governor = beans.governor();
        this.controls = governor.controls();
        this.tenant = tenant;
    }

    /** Read without creating: a console looking at a tenant must not make the governor count it. */
    private TenantCounters counters() {
        TenantCounters c = governor.stats().tenants().get(tenant);
        return c == null ? NONE : c;
    }

    @Override
    public String getName() {
        return tenant;
    }

    @Override
    public boolean isConfigured() {
        return controls.guarantees().indexOf(tenant) >= 0
                || beans.config().tenant(tenant).isPresent();
    }

    @Override
    public double getWeight() {
        return controls.tenantWeight(tenant);
    }

    @Override
    public void setWeight(double weight) {
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("weight must be > 0, was " + weight);
        }
        controls.setTenantWeight(tenant, weight);
        beans.changed();
    }

    @Override
    public double getGuaranteedShare() {
        return controls.guarantees().share(tenant);
    }

    @Override
    public void setGuaranteedShare(double share) {
        if (!(share >= 0 && share < 1)) {
            throw new IllegalArgumentException("guaranteedShare must be >= 0 and < 1, was " + share);
        }
        // refused, changing nothing, for a tenant not in the config or when shares would sum over 1
        controls.guarantees().setShare(tenant, share);
        beans.changed();
    }

    @Override
    public boolean isPaused() {
        return controls.pausedTenants().contains(tenant);
    }

    @Override
    public long getAdmitted() {
        return counters().admitted();
    }

    @Override
    public long getRejected() {
        return counters().rejected();
    }

    @Override
    public int getQueued() {
        Integer n = beans.view().now().waitingByTenant.get(tenant);
        return n == null ? 0 : n;
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
    public long getTotalTokens() {
        TenantCounters c = counters();
        return c.inputTokens() + c.outputTokens();
    }

    @Override
    public long getReservedTokens() {
        return counters().reservedTokens();
    }

    @Override
    public long getBorrowedTokens() {
        return counters().borrowedTokens();
    }

    @Override
    public long getWaitedMillis() {
        return counters().waitedNanos() / 1_000_000;
    }

    @Override
    public List<BucketRow> getBuckets() {
        LiveView.Snapshot s = beans.view().now();
        List<BucketView> own = new ArrayList<>();
        for (Limit l : controls.limits()) {
            LimitSpec spec = l.spec();
            boolean declaredForTenant = tenant.equals(spec.tenant());
            if (!declaredForTenant && spec.level() != ScopeLevel.TENANT) {
                continue;
            }
            for (BucketView v : s.buckets(l.id())) {
                if (declaredForTenant || tenant.equals(v.scopeValue())) {
                    own.add(v);
                }
            }
        }
        return LimitBean.rows(own, LimitBean.MAX_ROWS);
    }

    @Override
    public String pause() {
        return beans.governorBean().pauseTenant(tenant);
    }

    @Override
    public String resume() {
        return beans.governorBean().resumeTenant(tenant);
    }
}
