package dev.sluice.core.jmx;

import dev.sluice.config.ConfigException;
import dev.sluice.config.LimitConfig;
import dev.sluice.config.ProviderConfig;
import dev.sluice.config.SluiceConfig;
import dev.sluice.config.TenantConfig;
import dev.sluice.config.TrafficClassConfig;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorControls;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.exchange.ExchangeGovernance;
import dev.sluice.core.price.Prices;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.schedule.TrafficClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * Reloads the configuration into the running governor: loads it again from the sources it came
 * from and applies, to the live objects, what can change live (limit capacities and enforced flags,
 * tenant weights and guaranteed shares, traffic class max waits and depths, mode, fail mode, the
 * prices: the config's own and its {@code pricesFile}, read again, so a refreshed copy of LiteLLM's
 * table takes effect without a restart). Every
 * tunable value is set to the file's, so a reload also undoes emergency tuning made through JMX;
 * operator pauses stay.
 *
 * <p>A file that is invalid, or that changes what the live governor cannot (limits or tenants
 * added or removed, a limit's window or scope, providers, identity rules, the store...), is
 * refused with the list of such changes and nothing is applied. Building a second runtime and
 * swapping it in was rejected: the new governor would start with full buckets while the old one's
 * calls are still in flight (up to twice a limit in one window), and it would lose the queues,
 * learned limits, provider pauses and retry budgets; those changes need a restart.
 */
final class ConfigReload {

    private static final String TUNABLE = "limit capacity, burst and enforced, tenant weight and guaranteedShare,"
            + " traffic class maxWait and maxQueueDepth, mode, failMode, prices and pricesFile";

    private final SluiceRuntime runtime;
    private final Callable<SluiceConfig> source;
    /** The configuration the governor was built from: what a reload may not change. */
    private final SluiceConfig structure;

    private volatile String origin;
    /** The configuration whose prices calls are priced with: the last one reloaded. Guarded by this. */
    private SluiceConfig priced;

    ConfigReload(SluiceRuntime runtime, Callable<SluiceConfig> source) {
        this.runtime = runtime;
        this.source = source;
        this.structure = runtime.config();
        this.origin = structure.origin();
        this.priced = structure;
    }

    String origin() {
        return origin;
    }

    /**
     * @return what changed, one line each
     * @throws IllegalArgumentException when the configuration is invalid (nothing changed)
     * @throws IllegalStateException when it changes what needs a restart (nothing changed)
     */
    synchronized String reload() {
        if (source == null) {
            throw new IllegalStateException(
                    "reload refused: this Sluice was started without a config source to" + " reload from");
        }
        SluiceConfig next;
        try {
            next = source.call();
        } catch (ConfigException invalid) {
            throw new IllegalArgumentException(
                    "reload refused, nothing changed: the config is invalid\n" + invalid.getMessage());
        } catch (Exception e) {
            throw new IllegalStateException("reload refused, nothing changed: " + e);
        }
        List<String> restart = needsRestart(structure, next);
        if (!restart.isEmpty()) {
            throw new IllegalStateException("reload refused, nothing changed: these changes need a restart\n  "
                    + String.join("\n  ", restart) + "\nlive-tunable: " + TUNABLE);
        }
        List<Change> changes = plan(next);
        for (Change c : changes) {
            c.apply.run();
        }
        runtime.governor().controls().reconsiderWaiting();
        origin = next.origin();
        priced = next;
        StringBuilder report =
                new StringBuilder("reloaded ").append(next.origin()).append(": ");
        if (changes.isEmpty()) {
            return report.append("no changes, the live values already match").toString();
        }
        report.append(changes.size()).append(changes.size() == 1 ? " change applied" : " changes applied");
        for (Change c : changes) {
            report.append("\n  ").append(c.description);
        }
        return report.toString();
    }

    /** A change to one live value, checked before any is applied. */
    private static final class Change {
        final String description;
        final Runnable apply;

        Change(String description, Runnable apply) {
            this.description = description;
            this.apply = apply;
        }
    }

    /**
     * Every live value that differs from {@code next}, validated. Guaranteed shares that go down
     * are applied before those that go up, so the shares never sum over 1 on the way.
     */
    private List<Change> plan(SluiceConfig next) {
        Governor g = runtime.governor();
        GovernorControls controls = g.controls();
        ExchangeGovernance governance = runtime.governance();
        List<Change> changes = new ArrayList<>();
        // the pricesFile is read again: a refreshed copy is a change even under the same name
        boolean fileNamed = !next.pricesFile().trim().isEmpty();
        Prices prices = fileNamed ? Prices.of(next) : null;
        if (!priced.prices().equals(next.prices())
                || !priced.pricesFile().equals(next.pricesFile())
                || fileNamed && !Objects.equals(governance.prices().fileTable(), prices.fileTable())) {
            Prices table = prices != null ? prices : Prices.of(next);
            changes.add(new Change("prices: " + table.describeTables(), () -> governance.replacePrices(table)));
        }
        if (g.mode() != next.mode()) {
            changes.add(new Change("mode " + g.mode() + " -> " + next.mode(), () -> controls.setMode(next.mode())));
        }
        if (governance.failMode() != next.failMode()) {
            changes.add(new Change(
                    "failMode " + governance.failMode() + " -> " + next.failMode(),
                    () -> governance.setFailMode(next.failMode())));
        }
        for (LimitConfig lc : next.allLimits()) {
            Limit l = controls.limit(lc.id());
            if (l.capacity() != lc.capacity()) {
                check(lc.capacity() > 0, "limit " + lc.id() + " capacity must be > 0");
                changes.add(new Change(
                        "limit " + lc.id() + " capacity " + l.capacity() + " -> " + lc.capacity(),
                        () -> controls.setCapacity(lc.id(), lc.capacity())));
            }
            if (l.burstSetting() != lc.burst() && lc.burst() >= 0) {
                changes.add(new Change(
                        "limit " + lc.id() + " burst " + l.burstSetting() + " -> " + lc.burst(),
                        () -> controls.setBurst(lc.id(), lc.burst())));
            }
            if (l.enforced() != lc.enforced()) {
                changes.add(new Change(
                        "limit " + lc.id() + " enforced " + l.enforced() + " -> " + lc.enforced(),
                        () -> l.setEnforced(lc.enforced())));
            }
        }
        List<Change> sharesDown = new ArrayList<>();
        List<Change> sharesUp = new ArrayList<>();
        double shareSum = 0;
        for (TenantConfig t : next.tenants()) {
            double weight = controls.tenantWeight(t.name());
            if (weight != t.weight()) {
                check(t.weight() > 0 && !Double.isInfinite(t.weight()), "tenant " + t.name() + " weight must be > 0");
                changes.add(new Change(
                        "tenant " + t.name() + " weight " + weight + " -> " + t.weight(),
                        () -> controls.setTenantWeight(t.name(), t.weight())));
            }
            double share = controls.guarantees().share(t.name());
            double wanted = t.guaranteedShare();
            check(wanted >= 0 && wanted < 1, "tenant " + t.name() + " guaranteedShare must be >= 0 and < 1");
            shareSum += wanted;
            if (share != wanted) {
                Change c = new Change(
                        "tenant " + t.name() + " guaranteedShare " + share + " -> " + wanted,
                        () -> controls.guarantees().setShare(t.name(), wanted));
                (wanted < share ? sharesDown : sharesUp).add(c);
            }
        }
        check(shareSum <= 1 + 1e-9, "guaranteed shares sum to " + shareSum + ", more than 1");
        changes.addAll(0, sharesDown);
        changes.addAll(sharesUp);
        for (TrafficClassConfig c : next.trafficClasses()) {
            TrafficClass live = controls.trafficClasses().get(c.name());
            Duration wait = Duration.ofNanos(live.maxWaitNanos());
            if (!wait.equals(c.maxWait())) {
                check(!c.maxWait().isNegative() && !c.maxWait().isZero(), "class " + c.name() + " maxWait must be > 0");
                changes.add(new Change(
                        "class " + c.name() + " maxWait " + millis(wait) + " -> " + millis(c.maxWait()),
                        () -> live.setMaxWait(c.maxWait())));
            }
            if (live.maxQueueDepth() != c.maxQueueDepth()) {
                check(c.maxQueueDepth() >= 1, "class " + c.name() + " maxQueueDepth must be >= 1");
                changes.add(new Change(
                        "class " + c.name() + " maxQueueDepth " + live.maxQueueDepth() + " -> " + c.maxQueueDepth(),
                        () -> live.setMaxQueueDepth(c.maxQueueDepth())));
            }
        }
        return changes;
    }

    private static String millis(Duration d) {
        return d.toMillis() + "ms";
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("reload refused, nothing changed: " + message);
        }
    }

    /** What differs between the running structure and {@code next} that only a restart can apply. */
    static List<String> needsRestart(SluiceConfig running, SluiceConfig next) {
        List<String> out = new ArrayList<>();
        same(out, "logLevel", running.logLevel(), next.logLevel());
        same(out, "adoptHeaderLimits", running.adoptHeaderLimits(), next.adoptHeaderLimits());
        same(out, "leaseTimeout", running.leaseTimeout(), next.leaseTimeout());
        same(out, "coldStartWait", running.coldStartWait(), next.coldStartWait());
        section(out, "jmx", running.jmx(), next.jmx());
        section(out, "store", running.store(), next.store());
        section(out, "metrics", running.metrics(), next.metrics());
        section(out, "identity", running.identity(), next.identity());
        section(out, "retry", running.retry(), next.retry());
        section(out, "estimation", running.estimation(), next.estimation());
        same(out, "classScheduling", running.classScheduling(), next.classScheduling());
        same(out, "currency", running.currency(), next.currency());
        section(out, "fallbacks", running.fallbacks(), next.fallbacks());

        Map<String, ProviderConfig> providers = byName(running.providers());
        Map<String, ProviderConfig> nextProviders = byName(next.providers());
        addedRemoved(out, "provider", providers.keySet(), nextProviders.keySet());
        for (ProviderConfig p : next.providers()) {
            ProviderConfig was = providers.get(p.name());
            if (was != null) {
                String prefix = "provider " + p.name() + " ";
                same(out, prefix + "kind", was.kind(), p.kind());
                same(out, prefix + "match", was.match(), p.match());
                same(out, prefix + "scope", was.scope(), p.scope());
                same(out, prefix + "learnFromHeaders", was.learnFromHeaders(), p.learnFromHeaders());
                same(out, prefix + "ramp", was.declaredRamp(), p.declaredRamp());
            }
        }

        Map<String, LimitConfig> limits = new LinkedHashMap<>();
        for (LimitConfig l : running.allLimits()) {
            limits.put(l.id(), l);
        }
        Map<String, LimitConfig> nextLimits = new LinkedHashMap<>();
        for (LimitConfig l : next.allLimits()) {
            nextLimits.put(l.id(), l);
        }
        addedRemoved(out, "limit", limits.keySet(), nextLimits.keySet());
        for (LimitConfig l : next.allLimits()) {
            LimitConfig was = limits.get(l.id());
            if (was != null) {
                String prefix = "limit " + l.id() + " ";
                same(out, prefix + "dimension", was.dimension(), l.dimension());
                same(out, prefix + "window", was.window(), l.window());
                same(out, prefix + "algorithm", was.algorithm(), l.algorithm());
                same(out, prefix + "resetAt", was.resetAt(), l.resetAt());
                same(out, prefix + "zone", was.zone(), l.zone());
                same(out, prefix + "level", was.level(), l.level());
                same(out, prefix + "scope value", was.scopeValue(), l.scopeValue());
                same(out, prefix + "provider", was.provider(), l.provider());
                same(out, prefix + "models", was.models(), l.models());
                same(out, prefix + "shared", was.shared(), l.shared());
                same(out, prefix + "mirrorsProvider", was.mirrorsProvider(), l.mirrorsProvider());
            }
        }

        Map<String, TenantConfig> tenants = new LinkedHashMap<>();
        for (TenantConfig t : running.tenants()) {
            tenants.put(t.name(), t);
        }
        Map<String, TenantConfig> nextTenants = new LinkedHashMap<>();
        for (TenantConfig t : next.tenants()) {
            nextTenants.put(t.name(), t);
        }
        addedRemoved(out, "tenant", tenants.keySet(), nextTenants.keySet());

        Map<String, TrafficClassConfig> classes = new LinkedHashMap<>();
        for (TrafficClassConfig c : running.trafficClasses()) {
            classes.put(c.name(), c);
        }
        Map<String, TrafficClassConfig> nextClasses = new LinkedHashMap<>();
        for (TrafficClassConfig c : next.trafficClasses()) {
            nextClasses.put(c.name(), c);
        }
        addedRemoved(out, "traffic class", classes.keySet(), nextClasses.keySet());
        for (TrafficClassConfig c : next.trafficClasses()) {
            TrafficClassConfig was = classes.get(c.name());
            if (was != null) {
                same(out, "traffic class " + c.name() + " priority", was.priority(), c.priority());
                same(out, "traffic class " + c.name() + " overloadAction", was.overloadAction(), c.overloadAction());
            }
        }
        return out;
    }

    private static Map<String, ProviderConfig> byName(List<ProviderConfig> providers) {
        Map<String, ProviderConfig> m = new LinkedHashMap<>();
        for (ProviderConfig p : providers) {
            m.put(p.name(), p);
        }
        return m;
    }

    private static void same(List<String> out, String what, Object running, Object next) {
        if (!Objects.equals(running, next)) {
            out.add(what + " changed: " + running + " -> " + next);
        }
    }

    /** A whole section: named, not printed (the store's URL may hold a password). */
    private static void section(List<String> out, String what, Object running, Object next) {
        if (!Objects.equals(running, next)) {
            out.add(what + " changed");
        }
    }

    private static void addedRemoved(
            List<String> out, String what, java.util.Set<String> running, java.util.Set<String> next) {
        for (String n : next) {
            if (!running.contains(n)) {
                out.add(what + " " + n + " added");
            }
        }
        for (String n : running) {
            if (!next.contains(n)) {
                out.add(what + " " + n + " removed");
            }
        }
    }
}
