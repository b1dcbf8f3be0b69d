package dev.sluice.core.jmx;

import dev.sluice.config.ProviderConfig;
import dev.sluice.config.SluiceConfig;
import dev.sluice.config.TenantConfig;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorControls;
import dev.sluice.core.LazyLogger;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.exchange.ExchangeGovernance;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.schedule.TrafficClass;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Registers the MXBeans of a running Sluice in an {@link MBeanServer} and keeps the set current:
 * the governor, every configured limit and traffic class at once; tenants, providers and limits
 * learned from provider headers as they appear, checked at most once a second and only when
 * someone reads a bean (an idle service pays nothing, and no thread is added). Learned limits of
 * evicted provider scopes and tenants nobody counts any more go away.
 *
 * <p>Names, stable for jmx_exporter: {@code dev.sluice:type=Governor},
 * {@code dev.sluice:type=Limit,name=<id>}, {@code dev.sluice:type=Tenant,name=<tenant>},
 * {@code dev.sluice:type=TrafficClass,name=<class>}, {@code dev.sluice:type=Provider,name=<provider>};
 * characters an object name cannot hold unquoted ({@code , = : " * ?}) become {@code _}.
 */
public final class SluiceMBeans implements AutoCloseable {

    private static final LazyLogger LOG = LazyLogger.of(SluiceMBeans.class);

    public static final String DOMAIN = "dev.sluice";

    /** Tenants seen in calls get a bean up to this many (configured and paused tenants always do). */
    static final int MAX_SEEN_TENANTS = 200;

    /**
     * Limits learned from providers' headers get a bean up to this many (one per key, model and
     * budget, so a service with many keys would otherwise grow the MBean server without bound).
     */
    static final int MAX_LEARNED_LIMITS = 200;

    static final long REFRESH_NANOS = 1_000_000_000L;

    private final SluiceRuntime runtime;
    private final MBeanServer server;
    private final long refreshNanos;
    private final double alertTimeScale;
    private final LiveView view;
    private final ConfigReload reload;
    private final GovernorBean governorBean;

    /** Guarded by this. */
    private final Set<ObjectName> registered = new LinkedHashSet<>();

    private final List<BudgetBean> budgets = new ArrayList<>();

    /** The Governor bean's notifications; null until registered. */
    private GovernorAlerts alerts;

    private final Map<Limit, ObjectName> learnedLimits = new IdentityHashMap<>();
    private final Map<String, ObjectName> tenants = new LinkedHashMap<>();
    private final Map<String, ObjectName> providers = new LinkedHashMap<>();
    private boolean closed;

    private volatile long lastSyncNanos;
    private volatile boolean syncDue = true;

    private SluiceMBeans(
            SluiceRuntime runtime,
            MBeanServer server,
            Callable<SluiceConfig> configSource,
            long refreshNanos,
            double alertTimeScale) {
        this.runtime = runtime;
        this.server = server;
        this.refreshNanos = refreshNanos;
        this.alertTimeScale = alertTimeScale;
        this.view = new LiveView(runtime.governor(), refreshNanos);
        this.reload = new ConfigReload(runtime, configSource);
        this.governorBean = new GovernorBean(this);
    }

    /**
     * Registers the beans of {@code runtime}.
     *
     * @param configSource loads the configuration again from the sources it came from, for
     *     {@code reloadConfig()}; null when there is nothing to reload from
     * @throws JMException when the beans cannot be registered (e.g. another Sluice in this JVM
     *     holds the names); nothing stays registered then
     */
    public static SluiceMBeans register(SluiceRuntime runtime, MBeanServer server, Callable<SluiceConfig> configSource)
            throws JMException {
        return register(runtime, server, configSource, REFRESH_NANOS, 1.0);
    }

    /**
     * {@link #register(SluiceRuntime, MBeanServer, Callable)} with the Governor bean's alert
     * windows, holds and checks multiplied by {@code alertTimeScale} (1: as the shipped Prometheus
     * rules; a test compresses minutes into seconds).
     */
    public static SluiceMBeans register(
            SluiceRuntime runtime, MBeanServer server, Callable<SluiceConfig> configSource, double alertTimeScale)
            throws JMException {
        return register(runtime, server, configSource, REFRESH_NANOS, alertTimeScale);
    }

    /** Beans that read the runtime without being registered anywhere (see {@link MXBeanViews}). */
    static SluiceMBeans unregistered(SluiceRuntime runtime) {
        return new SluiceMBeans(runtime, null, null, REFRESH_NANOS, 1);
    }

    static SluiceMBeans register(
            SluiceRuntime runtime,
            MBeanServer server,
            Callable<SluiceConfig> configSource,
            long refreshNanos,
            double alertTimeScale)
            throws JMException {
        SluiceMBeans beans = new SluiceMBeans(runtime, server, configSource, refreshNanos, alertTimeScale);
        try {
            beans.registerFixed();
            beans.sync();
        } catch (JMException | RuntimeException e) {
            beans.close();
            throw e;
        }
        return beans;
    }

    /** {@code dev.sluice:type=<type>} or {@code dev.sluice:type=<type>,name=<name>}. */
    public static ObjectName name(String type, String name) {
        try {
            return new ObjectName(DOMAIN + ":type=" + type + (name == null ? "" : ",name=" + safe(name)));
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("not an object name: " + type + "/" + name, e);
        }
    }

    /** The governor's bean: {@code dev.sluice:type=Governor}. */
    public static ObjectName governorName() {
        return name("Governor", null);
    }

    /** A value an object name holds unquoted: {@code , = : " * ? \} and line breaks become {@code _}. */
    static String safe(String value) {
        if (value.isEmpty()) {
            return "_";
        }
        StringBuilder s = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            s.append(",=:\"*?\\\n\r".indexOf(c) >= 0 ? '_' : c);
        }
        return s.toString();
    }

    private synchronized void registerFixed() throws JMException {
        alerts = new GovernorAlerts(this, alertTimeScale);
        server.registerMBean(
                new EmittingMBean<>(governorBean, GovernorMXBean.class, this::syncIfDue, alerts), governorName());
        registered.add(governorName());
        alerts.attach(governorName());
        if (controls().store().sharesAny()) {
            add(name("Store", null), new StoreBean(controls().store()), StoreMXBean.class);
        }
        for (Limit l : controls().limits()) {
            add(unique("Limit", l.id()), LimitBean.configured(this, l), LimitMXBean.class);
        }
        for (TrafficClass c : controls().trafficClasses().values()) {
            add(unique("TrafficClass", c.name()), new TrafficClassBean(this, c), TrafficClassMXBean.class);
        }
        for (dev.sluice.core.quota.Ramp r : controls().ramps()) {
            add(unique("Ramp", r.provider()), new RampBean(r), RampMXBean.class);
        }
        for (Limit l : controls().limits()) {
            if (l.dimension() == dev.sluice.config.Dimension.SPEND) {
                BudgetBean bean = new BudgetBean(this, l);
                ObjectName n = unique("Budget", l.id());
                server.registerMBean(new EmittingMBean<>(bean, BudgetMXBean.class, this::syncIfDue, bean.emitter()), n);
                registered.add(n);
                bean.attach(n);
                budgets.add(bean);
            }
        }
    }

    private <T> void add(ObjectName name, T bean, Class<T> type) throws JMException {
        server.registerMBean(new DescribedMBean<>(bean, type, this::syncIfDue), name);
        registered.add(name);
    }

    private void remove(ObjectName name) {
        registered.remove(name);
        try {
            server.unregisterMBean(name);
        } catch (JMException | RuntimeException e) {
            LOG.get().debug("could not unregister {}: {}", name, e.toString());
        }
    }

    /** A name not taken yet: a second bean whose name comes out the same gets {@code #2}, {@code #3}... */
    private ObjectName unique(String type, String name) {
        ObjectName candidate = name(type, name);
        for (int n = 2; registered.contains(candidate) || server.isRegistered(candidate); n++) {
            candidate = name(type, name + "#" + n);
        }
        return candidate;
    }

    /** Brings the set of beans up to date if the last check is older than a second. */
    void syncIfDue() {
        if (syncDue || governor().clock().nanoTime() - lastSyncNanos >= refreshNanos) {
            sync();
        }
    }

    /** Registers beans for new tenants, providers and learned limits; drops the ones gone. */
    synchronized void sync() {
        if (closed) {
            return;
        }
        syncDue = false;
        lastSyncNanos = governor().clock().nanoTime();
        try {
            syncLearnedLimits();
            syncTenants();
            syncProviders();
        } catch (JMException | RuntimeException e) {
            LOG.get().warn("could not update the dev.sluice MXBeans: {}", e.toString());
        }
    }

    private void syncLearnedLimits() throws JMException {
        Set<Limit> alive = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (ProviderScope s : controls().providerScopes()) {
            if (s.isEvicted()) {
                continue;
            }
            for (Bucket b : s.learnedBuckets()) {
                alive.add(b.limit());
                if (!learnedLimits.containsKey(b.limit())) {
                    if (learnedLimits.size() >= MAX_LEARNED_LIMITS) {
                        continue; // describeLimits() and status still list them all
                    }
                    ObjectName n = unique("Limit", b.limit().id());
                    add(n, LimitBean.learned(this, s, b), LimitMXBean.class);
                    learnedLimits.put(b.limit(), n);
                }
            }
        }
        for (Map.Entry<Limit, ObjectName> e : new ArrayList<>(learnedLimits.entrySet())) {
            if (!alive.contains(e.getKey())) {
                learnedLimits.remove(e.getKey());
                remove(e.getValue());
            }
        }
    }

    private void syncTenants() throws JMException {
        Set<String> keep = new LinkedHashSet<>();
        for (TenantConfig t : config().tenants()) {
            keep.add(t.name());
        }
        keep.addAll(controls().pausedTenants());
        Set<String> seen = governor().stats().tenants().keySet();
        for (String t : tenants.keySet()) {
            if (seen.contains(t)) {
                keep.add(t);
            }
        }
        int room = MAX_SEEN_TENANTS - keep.size();
        for (String t : seen) {
            if (room <= 0) {
                break;
            }
            if (!t.isEmpty() && keep.add(t)) {
                room--;
            }
        }
        for (String t : keep) {
            if (!tenants.containsKey(t)) {
                ObjectName n = unique("Tenant", t);
                add(n, new TenantBean(this, t), TenantMXBean.class);
                tenants.put(t, n);
            }
        }
        for (String t : new ArrayList<>(tenants.keySet())) {
            if (!keep.contains(t)) {
                remove(tenants.remove(t));
            }
        }
    }

    /** Configured providers, then those seen in calls or scopes. */
    Set<String> providerNames() {
        Set<String> names = new LinkedHashSet<>();
        for (ProviderConfig p : config().providers()) {
            names.add(p.name());
        }
        names.addAll(governance().allCounters().keySet());
        for (ProviderScope s : controls().providerScopes()) {
            names.add(providerOf(s));
        }
        return names;
    }

    private void syncProviders() throws JMException {
        for (String p : providerNames()) {
            if (!providers.containsKey(p)) {
                ObjectName n = unique("Provider", p);
                add(n, new ProviderBean(this, p), ProviderMXBean.class);
                providers.put(p, n);
            }
        }
    }

    /** Something was changed through JMX: the next read shows it, and waiting calls get their turn. */
    void changed() {
        view.invalidate();
        syncDue = true;
        controls().reconsiderWaiting();
    }

    /** Every bean registered now. */
    public synchronized Set<ObjectName> names() {
        return new HashSet<>(registered);
    }

    /** Unregisters every bean. */
    @Override
    public synchronized void close() {
        closed = true;
        for (ObjectName n : new ArrayList<>(registered)) {
            remove(n);
        }
        for (BudgetBean b : budgets) {
            b.detach();
        }
        budgets.clear();
        if (alerts != null) {
            alerts.close();
        }
        learnedLimits.clear();
        tenants.clear();
        providers.clear();
    }

    // ------------------------------------------------------------------ for the beans

    Governor governor() {
        return runtime.governor();
    }

    /** The governor's operators' controls. */
    GovernorControls controls() {
        return runtime.governor().controls();
    }

    ExchangeGovernance governance() {
        return runtime.governance();
    }

    SluiceConfig config() {
        return runtime.config();
    }

    LiveView view() {
        return view;
    }

    ConfigReload reload() {
        return reload;
    }

    GovernorBean governorBean() {
        return governorBean;
    }

    /** The Governor bean's notifications; null before registration. */
    GovernorAlerts alerts() {
        return alerts;
    }

    /** Learned limits now, by scope. */
    synchronized List<LimitBean> learned() {
        List<LimitBean> beans = new ArrayList<>();
        for (ProviderScope s : controls().providerScopes()) {
            if (!s.isEvicted()) {
                for (Bucket b : s.learnedBuckets()) {
                    beans.add(LimitBean.learned(this, s, b));
                }
            }
        }
        beans.sort(java.util.Comparator.comparing((LimitBean b) -> b.scope().displayName())
                .thenComparing(LimitBean::getId));
        return beans;
    }

    /** A provider scope's key is {@code provider|apiKeyId|model} ({@code -} for none). */
    static String providerOf(ProviderScope s) {
        String key = s.key();
        int bar = key.indexOf('|');
        return bar < 0 ? key : key.substring(0, bar);
    }

    static String apiKeyOf(ProviderScope s) {
        String middle = middleOf(s);
        return middle.startsWith(ORGANIZATION) ? "-" : middle;
    }

    /** The organization a scope counts for, or {@code -} when it is a key's own. */
    static String organizationOf(ProviderScope s) {
        String middle = middleOf(s);
        return middle.startsWith(ORGANIZATION) ? middle.substring(ORGANIZATION.length()) : "-";
    }

    /** How a scope's key names an organization ({@code provider|org:<organization>|model}). */
    private static final String ORGANIZATION = "org:";

    private static String middleOf(ProviderScope s) {
        String key = s.key();
        int first = key.indexOf('|');
        int second = first < 0 ? -1 : key.indexOf('|', first + 1);
        return second < 0 ? "-" : key.substring(first + 1, second);
    }

    /** The scope's model, or null. */
    static String modelOf(ProviderScope s) {
        String key = s.key();
        int first = key.indexOf('|');
        int second = first < 0 ? -1 : key.indexOf('|', first + 1);
        String model = second < 0 ? "-" : key.substring(second + 1);
        return model.equals("-") ? null : model;
    }
}
