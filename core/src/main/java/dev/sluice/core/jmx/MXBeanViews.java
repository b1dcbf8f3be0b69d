package dev.sluice.core.jmx;

import dev.sluice.config.Dimension;
import dev.sluice.config.TenantConfig;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.schedule.TrafficClass;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the MXBeans show, read the same way, with no MBean server: for an exporter that pulls (the
 * agent's Prometheus endpoint). Figures come from the same live view the beans share, read under
 * the governor's lock at most once a second, so a scrape does not slow admission. The views are
 * the beans' own interfaces; their setters tune the governor as through JMX.
 */
public final class MXBeanViews {

    private final SluiceMBeans beans;
    private final GovernorBean governor;
    private final List<LimitMXBean> configuredLimits = new ArrayList<>();
    private final List<TrafficClassMXBean> classes = new ArrayList<>();
    private final List<BudgetMXBean> budgets = new ArrayList<>();

    public MXBeanViews(SluiceRuntime runtime) {
        this.beans = SluiceMBeans.unregistered(runtime);
        this.governor = beans.governorBean();
        for (Limit l : beans.controls().limits()) {
            configuredLimits.add(LimitBean.configured(beans, l));
            if (l.dimension() == Dimension.SPEND) {
                budgets.add(new BudgetBean(beans, l));
            }
        }
        for (TrafficClass c : beans.controls().trafficClasses().values()) {
            classes.add(new TrafficClassBean(beans, c));
        }
    }

    /** The governor's figures. */
    public GovernorMXBean governor() {
        return governor;
    }

    /**
     * Every limit: the configured ones, then those learned from providers' headers in live scopes
     * (at most as many as JMX registers, {@value SluiceMBeans#MAX_LEARNED_LIMITS}).
     */
    public List<LimitMXBean> limits() {
        List<LimitMXBean> all = new ArrayList<>(configuredLimits);
        List<LimitBean> learned = beans.learned();
        all.addAll(learned.subList(0, Math.min(learned.size(), SluiceMBeans.MAX_LEARNED_LIMITS)));
        return all;
    }

    public List<TrafficClassMXBean> trafficClasses() {
        return classes;
    }

    /** Configured spend limits. */
    public List<BudgetMXBean> budgets() {
        return budgets;
    }

    /** Configured tenants, paused tenants, then the tenants seen in calls (recently counted). */
    public Set<String> tenantNames() {
        Set<String> names = new LinkedHashSet<>();
        for (TenantConfig t : beans.config().tenants()) {
            names.add(t.name());
        }
        names.addAll(beans.controls().pausedTenants());
        for (String t : beans.governor().stats().tenants().keySet()) {
            if (!t.isEmpty()) {
                names.add(t);
            }
        }
        return names;
    }

    /** One tenant's figures (zeros for a tenant nobody counted). */
    public TenantMXBean tenant(String name) {
        return new TenantBean(beans, name);
    }

    /** Configured providers, then those seen in calls. */
    public List<ProviderMXBean> providers() {
        List<ProviderMXBean> all = new ArrayList<>();
        for (String p : beans.providerNames()) {
            all.add(new ProviderBean(beans, p));
        }
        return all;
    }
}
