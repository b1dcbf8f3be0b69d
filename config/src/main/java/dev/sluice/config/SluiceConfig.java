package dev.sluice.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Everything the agent and the governor are configured with: one immutable, validated value.
 * Obtain it from {@link ConfigLoader#load(ConfigSources)} (file, system properties, environment,
 * agent arguments), from {@link #defaults()}, or build it in code with {@link #builder()}; derive
 * a tuned copy with {@link #toBuilder()} or the {@code with...} methods (what the JMX operations
 * use). Every list and map it hands out is unmodifiable.
 *
 * <p>{@link #equals(Object)} compares settings only, not {@link #origin()}, so a reload that
 * changed nothing can be recognised as such.
 */
public final class SluiceConfig {
    /** The default for {@link #leaseTimeout()}. */
    public static final Duration DEFAULT_LEASE_TIMEOUT = ConfigSchema.LEASE_TIMEOUT.defaultValue;
    /** {@link #stateFile()}: a file of the agent's choosing (see the README). */
    public static final String STATE_FILE_AUTO = "auto";
    /** {@link #stateFile()}: no state file. */
    public static final String STATE_FILE_OFF = "off";
    /** The default for {@link #coldStartWait()}. */
    public static final Duration DEFAULT_COLD_START_WAIT = ConfigSchema.COLD_START_WAIT.defaultValue;

    static final String DEFAULTS_ORIGIN = "defaults (no config file)";

    private static final SluiceConfig DEFAULTS =
            new Builder().origin(DEFAULTS_ORIGIN).build();

    private final Mode mode;
    private final FailMode failMode;
    private final LogLevel logLevel;
    private final boolean adoptHeaderLimits;
    private final Duration leaseTimeout;
    private final Duration coldStartWait;
    private final String stateFile;
    private final Duration stateSaveInterval;
    private final JmxConfig jmx;
    private final StoreConfig store;
    private final MetricsConfig metrics;
    private final List<ProviderConfig> providers;
    private final List<LimitConfig> limits;
    private final IdentityConfig identity;
    private final List<TenantConfig> tenants;
    private final ClassScheduling classScheduling;
    private final List<TrafficClassConfig> trafficClasses;
    private final List<FallbackConfig> fallbacks;
    private final RetryConfig retry;
    private final EstimationConfig estimation;
    private final String currency;
    private final List<PriceConfig> prices;
    private final String pricesFile;
    private final String origin;

    private SluiceConfig(Builder b) {
        this.mode = b.mode;
        this.failMode = b.failMode;
        this.logLevel = b.logLevel;
        this.adoptHeaderLimits = b.adoptHeaderLimits;
        this.leaseTimeout = b.leaseTimeout;
        this.coldStartWait = b.coldStartWait;
        this.stateFile = b.stateFile;
        this.stateSaveInterval = b.stateSaveInterval;
        this.jmx = b.jmx;
        this.store = b.store;
        this.metrics = b.metrics;
        this.providers = List.copyOf(b.providers);
        this.limits = Collections.unmodifiableList(topLevel(b.limits));
        this.identity = b.identity;
        this.tenants = List.copyOf(b.tenants);
        this.classScheduling = b.classScheduling;
        this.trafficClasses = Collections.unmodifiableList(mergeClasses(b.trafficClasses));
        this.fallbacks = List.copyOf(b.fallbacks);
        this.retry = b.retry;
        this.estimation = b.estimation;
        this.currency = b.currency;
        this.prices = List.copyOf(b.prices);
        this.pricesFile = b.pricesFile;
        this.origin = b.origin;
    }

    /** Built-ins first (replaced by declared classes of the same name), then the other declared classes in order. */
    private static List<TrafficClassConfig> mergeClasses(List<TrafficClassConfig> declared) {
        Map<String, TrafficClassConfig> byName = new LinkedHashMap<>();
        for (TrafficClassConfig c : TrafficClassConfig.builtIns()) {
            byName.put(c.name(), c);
        }
        Set<String> seen = new java.util.HashSet<>();
        for (TrafficClassConfig c : declared) {
            if (c.name() == null) {
                continue;
            }
            if (seen.add(c.name())) {
                byName.put(c.name(), c);
            }
        }
        return new ArrayList<>(byName.values());
    }

    /** What Sluice does with no config at all: enforce, fail open, local store, built-in classes, default identity rules. */
    public static SluiceConfig defaults() {
        return DEFAULTS;
    }

    /** Starts from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.mode = mode;
        b.failMode = failMode;
        b.logLevel = logLevel;
        b.adoptHeaderLimits = adoptHeaderLimits;
        b.leaseTimeout = leaseTimeout;
        b.coldStartWait = coldStartWait;
        b.stateFile = stateFile;
        b.stateSaveInterval = stateSaveInterval;
        b.jmx = jmx;
        b.store = store;
        b.metrics = metrics;
        b.providers = new ArrayList<>(providers);
        b.limits = new ArrayList<>(limits);
        b.identity = identity;
        b.tenants = new ArrayList<>(tenants);
        b.classScheduling = classScheduling;
        b.trafficClasses = new ArrayList<>(trafficClasses);
        b.fallbacks = new ArrayList<>(fallbacks);
        b.retry = retry;
        b.estimation = estimation;
        b.currency = currency;
        b.prices = new ArrayList<>(prices);
        b.pricesFile = pricesFile;
        b.origin = origin;
        return b;
    }

    public Mode mode() {
        return mode;
    }

    public FailMode failMode() {
        return failMode;
    }

    public LogLevel logLevel() {
        return logLevel;
    }

    /** Whether provider-announced limits above the configured ones are adopted (else headers only ever lower them). */
    public boolean adoptHeaderLimits() {
        return adoptHeaderLimits;
    }

    /** How long a concurrency slot or stream reservation may stay unreleased before the lease reaper frees it. */
    public Duration leaseTimeout() {
        return leaseTimeout;
    }

    /**
     * How long calls to a provider scope Sluice knows nothing about wait for the first call's answer
     * (and the rate-limit headers it brings) before they go anyway; zero lets every call go at once.
     */
    public Duration coldStartWait() {
        return coldStartWait;
    }

    /**
     * Where what Sluice learned (limits, pauses, window counts) is kept across a restart:
     * {@link #STATE_FILE_AUTO}, {@link #STATE_FILE_OFF}, or a path. A fleet on Redis needs none.
     */
    public String stateFile() {
        return stateFile;
    }

    /** How often the state file is written while calls flow; it is also written at shutdown. */
    public Duration stateSaveInterval() {
        return stateSaveInterval;
    }

    public JmxConfig jmx() {
        return jmx;
    }

    public StoreConfig store() {
        return store;
    }

    /** The Prometheus endpoint and the OpenTelemetry meters (off by default). */
    public MetricsConfig metrics() {
        return metrics;
    }

    public List<ProviderConfig> providers() {
        return providers;
    }

    /** Sluice's own top-level limits (not those of providers or tenants; see {@link #allLimits()}). */
    public List<LimitConfig> limits() {
        return limits;
    }

    public IdentityConfig identity() {
        return identity;
    }

    public List<TenantConfig> tenants() {
        return tenants;
    }

    public ClassScheduling classScheduling() {
        return classScheduling;
    }

    /** Every traffic class: the built-ins (default, interactive, batch, possibly overridden), then the added ones. */
    public List<TrafficClassConfig> trafficClasses() {
        return trafficClasses;
    }

    /** Where calls of some classes may go when their provider cannot take them; empty: calls never move. */
    public List<FallbackConfig> fallbacks() {
        return fallbacks;
    }

    public RetryConfig retry() {
        return retry;
    }

    public EstimationConfig estimation() {
        return estimation;
    }

    /**
     * The unit spend limits and prices are in: a short name such as {@code USD} (the default,
     * and the unit of Sluice's built-in price table), {@code EUR} or {@code CREDITS}. Spend is
     * counted in millionths of it.
     */
    public String currency() {
        return currency;
    }

    /**
     * The config's own price entries, in order. They override the built-in table's entries for
     * the same model and provider ({@link PriceConfig#defaults()}) and add others; the built-in
     * table applies only when {@link #currency()} is its currency (USD).
     */
    public List<PriceConfig> prices() {
        return prices;
    }

    /**
     * A price table file to price calls with, between the built-in table and the config's own
     * {@code prices:}: LiteLLM's {@code model_prices_and_context_window.json} or a table in the
     * built-in table's format ({@link PriceTable#read}); empty for none. The config checks it can
     * be read; it is read when the price table is built (off the application's start, as the
     * built-in table is), and again on every reload.
     */
    public String pricesFile() {
        return pricesFile;
    }

    /**
     * Where this config came from, for the agent's start-up line: {@code file /etc/sluice.yaml + -Dsluice.mode},
     * {@code defaults (no config file)}.
     */
    public String origin() {
        return origin;
    }

    public Optional<ProviderConfig> provider(String name) {
        return providers.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    public Optional<TenantConfig> tenant(String name) {
        return tenants.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public Optional<TrafficClassConfig> trafficClass(String name) {
        return trafficClasses.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /** The limit with this id, wherever it is declared. */
    public Optional<LimitConfig> limit(String id) {
        return allLimits().stream().filter(l -> l.id().equals(id)).findFirst();
    }

    /** Every limit: the providers' own, then the top-level ones, then the tenants'. */
    public List<LimitConfig> allLimits() {
        List<LimitConfig> all = new ArrayList<>();
        for (ProviderConfig p : providers) {
            all.addAll(p.limits());
        }
        all.addAll(limits);
        for (TenantConfig t : tenants) {
            all.addAll(t.limits());
        }
        return Collections.unmodifiableList(all);
    }

    public SluiceConfig withMode(Mode mode) {
        return toBuilder().mode(mode).build();
    }

    public SluiceConfig withFailMode(FailMode failMode) {
        return toBuilder().failMode(failMode).build();
    }

    public SluiceConfig withLogLevel(LogLevel logLevel) {
        return toBuilder().logLevel(logLevel).build();
    }

    public SluiceConfig withRetry(RetryConfig retry) {
        return toBuilder().retry(retry).build();
    }

    public SluiceConfig withEstimation(EstimationConfig estimation) {
        return toBuilder().estimation(estimation).build();
    }

    public SluiceConfig withClassScheduling(ClassScheduling classScheduling) {
        return toBuilder().classScheduling(classScheduling).build();
    }

    /** This config with the tenant of that name replaced, or added when there is none. */
    public SluiceConfig withTenant(TenantConfig tenant) {
        List<TenantConfig> list = new ArrayList<>(tenants);
        replaceOrAdd(list, tenant, TenantConfig::name);
        return toBuilder().tenants(list).build();
    }

    /** This config with the traffic class of that name replaced, or added when there is none. */
    public SluiceConfig withTrafficClass(TrafficClassConfig trafficClass) {
        List<TrafficClassConfig> list = new ArrayList<>(trafficClasses);
        replaceOrAdd(list, trafficClass, TrafficClassConfig::name);
        return toBuilder().trafficClasses(list).build();
    }

    /**
     * This config with the limit of the same id replaced, wherever it is declared (a provider,
     * the top level, a tenant); the replacement takes that place's provider and tenant.
     *
     * @throws IllegalArgumentException if no limit has that id, or the result is invalid
     */
    public SluiceConfig withLimit(LimitConfig limit) {
        String id = limit.id();
        Builder b = toBuilder();
        boolean found = false;
        for (int i = 0; i < b.providers.size(); i++) {
            ProviderConfig p = b.providers.get(i);
            List<LimitConfig> list = new ArrayList<>(p.limits());
            if (replaceById(list, limit, id)) {
                b.providers.set(i, p.toBuilder().limits(list).build());
                found = true;
            }
        }
        found |= replaceById(b.limits, limit, id);
        for (int i = 0; i < b.tenants.size(); i++) {
            TenantConfig t = b.tenants.get(i);
            List<LimitConfig> list = new ArrayList<>(t.limits());
            if (replaceById(list, limit, id)) {
                b.tenants.set(i, t.toBuilder().limits(list).build());
                found = true;
            }
        }
        if (!found) {
            throw new IllegalArgumentException("no limit has id " + id);
        }
        return b.build();
    }

    private static boolean replaceById(List<LimitConfig> list, LimitConfig replacement, String id) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).id().equals(id)) {
                // Keep the id even if the new values would derive another one: JMX names stay stable.
                list.set(i, replacement.toBuilder().id(id).buildUnchecked());
                return true;
            }
        }
        return false;
    }

    private static <T> void replaceOrAdd(List<T> list, T item, java.util.function.Function<T, String> name) {
        for (int i = 0; i < list.size(); i++) {
            if (name.apply(list.get(i)).equals(name.apply(item))) {
                list.set(i, item);
                return;
            }
        }
        list.add(item);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SluiceConfig)) {
            return false;
        }
        SluiceConfig c = (SluiceConfig) o;
        return mode == c.mode
                && failMode == c.failMode
                && logLevel == c.logLevel
                && adoptHeaderLimits == c.adoptHeaderLimits
                && leaseTimeout.equals(c.leaseTimeout)
                && coldStartWait.equals(c.coldStartWait)
                && stateFile.equals(c.stateFile)
                && stateSaveInterval.equals(c.stateSaveInterval)
                && jmx.equals(c.jmx)
                && store.equals(c.store)
                && metrics.equals(c.metrics)
                && providers.equals(c.providers)
                && limits.equals(c.limits)
                && identity.equals(c.identity)
                && tenants.equals(c.tenants)
                && classScheduling == c.classScheduling
                && trafficClasses.equals(c.trafficClasses)
                && fallbacks.equals(c.fallbacks)
                && retry.equals(c.retry)
                && estimation.equals(c.estimation)
                && currency.equals(c.currency)
                && prices.equals(c.prices)
                && pricesFile.equals(c.pricesFile);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                mode,
                failMode,
                logLevel,
                adoptHeaderLimits,
                leaseTimeout,
                coldStartWait,
                stateFile,
                stateSaveInterval,
                jmx,
                store,
                metrics,
                providers,
                limits,
                identity,
                tenants,
                classScheduling,
                trafficClasses,
                fallbacks,
                retry,
                estimation,
                currency,
                prices,
                pricesFile);
    }

    @Override
    public String toString() {
        return "SluiceConfig{origin=" + origin + ", mode=" + mode + ", failMode=" + failMode + ", logLevel=" + logLevel
                + ", adoptHeaderLimits=" + adoptHeaderLimits + ", leaseTimeout=" + Issues.render(leaseTimeout)
                + ", coldStartWait=" + Issues.render(coldStartWait) + ", stateFile=" + stateFile
                + ", stateSaveInterval=" + Issues.render(stateSaveInterval) + ", " + jmx
                + ", " + store + ", " + metrics + ", providers=" + providers + ", limits=" + limits + ", " + identity
                + ", tenants="
                + tenants + ", classScheduling=" + classScheduling + ", trafficClasses=" + trafficClasses
                + (fallbacks.isEmpty() ? "" : ", fallbacks=" + fallbacks) + ", " + retry
                + ", " + estimation + ", currency=" + currency + (prices.isEmpty() ? "" : ", prices=" + prices)
                + (pricesFile.isEmpty() ? "" : ", pricesFile=" + pricesFile) + "}";
    }

    /**
     * Builds a {@link SluiceConfig}, starting from the defaults. {@link #build()} checks every
     * section and the rules between sections (unique names and ids, references to providers and
     * classes, guaranteed shares summing to at most 1) and names every problem it finds.
     */
    public static final class Builder {
        // The top level's scalar settings: defaults, ranges and docs in ConfigSchema.ROOT.
        Mode mode;
        FailMode failMode;
        LogLevel logLevel;
        boolean adoptHeaderLimits;
        Duration leaseTimeout;
        Duration coldStartWait;
        String stateFile;
        Duration stateSaveInterval;
        ClassScheduling classScheduling;
        JmxConfig jmx = JmxConfig.defaults();
        StoreConfig store = StoreConfig.defaults();
        MetricsConfig metrics = MetricsConfig.defaults();
        List<ProviderConfig> providers = new ArrayList<>();
        List<LimitConfig> limits = new ArrayList<>();
        IdentityConfig identity = IdentityConfig.defaults();
        List<TenantConfig> tenants = new ArrayList<>();
        List<TrafficClassConfig> trafficClasses = new ArrayList<>();
        List<FallbackConfig> fallbacks = new ArrayList<>();
        RetryConfig retry = RetryConfig.defaults();
        EstimationConfig estimation = EstimationConfig.defaults();
        String currency;
        List<PriceConfig> prices = new ArrayList<>();
        String pricesFile;
        String origin = "built in code";

        private Builder() {
            ConfigSchema.ROOT.applyDefaults(this);
        }

        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        public Builder failMode(FailMode failMode) {
            this.failMode = Objects.requireNonNull(failMode, "failMode");
            return this;
        }

        public Builder logLevel(LogLevel logLevel) {
            this.logLevel = Objects.requireNonNull(logLevel, "logLevel");
            return this;
        }

        public Builder adoptHeaderLimits(boolean adoptHeaderLimits) {
            this.adoptHeaderLimits = adoptHeaderLimits;
            return this;
        }

        public Builder leaseTimeout(Duration leaseTimeout) {
            this.leaseTimeout = Objects.requireNonNull(leaseTimeout, "leaseTimeout");
            return this;
        }

        public Builder coldStartWait(Duration coldStartWait) {
            this.coldStartWait = Objects.requireNonNull(coldStartWait, "coldStartWait");
            return this;
        }

        public Builder stateFile(String stateFile) {
            this.stateFile = Objects.requireNonNull(stateFile, "stateFile");
            return this;
        }

        public Builder stateSaveInterval(Duration stateSaveInterval) {
            this.stateSaveInterval = Objects.requireNonNull(stateSaveInterval, "stateSaveInterval");
            return this;
        }

        public Builder jmx(JmxConfig jmx) {
            this.jmx = Objects.requireNonNull(jmx, "jmx");
            return this;
        }

        public Builder store(StoreConfig store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        public Builder metrics(MetricsConfig metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        public Builder providers(List<ProviderConfig> providers) {
            this.providers = new ArrayList<>(Objects.requireNonNull(providers, "providers"));
            return this;
        }

        public Builder provider(ProviderConfig provider) {
            this.providers.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        public Builder limits(List<LimitConfig> limits) {
            this.limits = new ArrayList<>(Objects.requireNonNull(limits, "limits"));
            return this;
        }

        /** Adds a top-level limit. */
        public Builder limit(LimitConfig limit) {
            this.limits.add(Objects.requireNonNull(limit, "limit"));
            return this;
        }

        public Builder identity(IdentityConfig identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
            return this;
        }

        public Builder tenants(List<TenantConfig> tenants) {
            this.tenants = new ArrayList<>(Objects.requireNonNull(tenants, "tenants"));
            return this;
        }

        public Builder tenant(TenantConfig tenant) {
            this.tenants.add(Objects.requireNonNull(tenant, "tenant"));
            return this;
        }

        public Builder classScheduling(ClassScheduling classScheduling) {
            this.classScheduling = Objects.requireNonNull(classScheduling, "classScheduling");
            return this;
        }

        /** The declared classes; built-ins not among them keep their defaults. */
        public Builder trafficClasses(List<TrafficClassConfig> trafficClasses) {
            this.trafficClasses = new ArrayList<>(Objects.requireNonNull(trafficClasses, "trafficClasses"));
            return this;
        }

        /** Declares a class: overrides the built-in of that name, or adds one. */
        public Builder trafficClass(TrafficClassConfig trafficClass) {
            this.trafficClasses.add(Objects.requireNonNull(trafficClass, "trafficClass"));
            return this;
        }

        public Builder retry(RetryConfig retry) {
            this.retry = Objects.requireNonNull(retry, "retry");
            return this;
        }

        public Builder estimation(EstimationConfig estimation) {
            this.estimation = Objects.requireNonNull(estimation, "estimation");
            return this;
        }

        /** The unit of spend limits and prices: 1 to 12 letters or digits, such as USD (the default) or EUR. */
        public Builder currency(String currency) {
            this.currency = Objects.requireNonNull(currency, "currency");
            return this;
        }

        /** Where calls of some classes may go when their provider cannot take them (replacing any set before). */
        public Builder fallbacks(List<FallbackConfig> fallbacks) {
            this.fallbacks = new ArrayList<>(Objects.requireNonNull(fallbacks, "fallbacks"));
            return this;
        }

        /** The config's own price entries (replacing any set before). */
        public Builder prices(List<PriceConfig> prices) {
            this.prices = new ArrayList<>(Objects.requireNonNull(prices, "prices"));
            return this;
        }

        /** Adds a price entry: it overrides the built-in entry of the same model and provider. */
        public Builder price(PriceConfig price) {
            this.prices.add(Objects.requireNonNull(price, "price"));
            return this;
        }

        /** A price table file (LiteLLM's JSON or the built-in table's format); empty for none. */
        public Builder pricesFile(String path) {
            this.pricesFile = Objects.requireNonNull(path, "pricesFile");
            return this;
        }

        /** A short description of where the settings came from, shown at start-up. */
        public Builder origin(String origin) {
            this.origin = Objects.requireNonNull(origin, "origin");
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public SluiceConfig build() {
            Issues issues = issues();
            String unreadable = PriceTable.unreadable(pricesFile);
            if (unreadable != null) {
                issues.add("pricesFile", pricesFile, unreadable);
            }
            issues.throwIfAny("sluice config");
            return new SluiceConfig(this);
        }

        /** Every problem of every section and between sections, with paths as in a config file. */
        Issues issues() {
            Issues issues = new Issues();
            ConfigSchema.ROOT.validate(this, "", issues);
            store.validate("store", issues);
            ConfigSchema.METRICS.validate(metrics, "metrics", issues);
            identity.validate("identity", issues);
            for (int i = 0; i < providers.size(); i++) {
                providers.get(i).validate(Issues.index("", "providers", i), issues);
            }
            List<LimitConfig> topLevel = SluiceConfig.topLevel(limits);
            for (int i = 0; i < topLevel.size(); i++) {
                topLevel.get(i).validate(Issues.index("", "limits", i), issues);
            }
            for (int i = 0; i < tenants.size(); i++) {
                tenants.get(i).validate(Issues.index("", "tenants", i), issues);
            }
            for (int i = 0; i < trafficClasses.size(); i++) {
                trafficClasses.get(i).validate(Issues.index("", "trafficClasses", i), issues);
            }
            for (int i = 0; i < fallbacks.size(); i++) {
                fallbacks.get(i).validate(Issues.index("", "fallbacks", i), issues);
            }
            retry.validate("retry", issues);
            estimation.validate("estimation", issues);
            for (int i = 0; i < prices.size(); i++) {
                prices.get(i).validate(Issues.index("", "prices", i), issues);
            }
            crossCheck(topLevel, issues);
            return issues;
        }

        private void crossCheck(List<LimitConfig> topLevel, Issues issues) {
            Map<String, String> providerPaths = new LinkedHashMap<>();
            for (int i = 0; i < providers.size(); i++) {
                unique(providers.get(i).name(), Issues.index("", "providers", i), providerPaths, issues);
            }
            checkOverlappingMatches(issues);

            Map<String, String> tenantPaths = new HashMap<>();
            double shares = 0;
            for (int i = 0; i < tenants.size(); i++) {
                unique(tenants.get(i).name(), Issues.index("", "tenants", i), tenantPaths, issues);
                double s = tenants.get(i).guaranteedShare();
                if (s > 0 && s < 1) {
                    shares += s;
                }
            }
            if (shares > 1 + 1e-9) {
                issues.add(
                        "tenants", shares, "guaranteed shares add up to " + Issues.number(shares) + ", must be <= 1");
            }

            Map<String, String> classPaths = new HashMap<>();
            for (int i = 0; i < trafficClasses.size(); i++) {
                TrafficClassConfig c = trafficClasses.get(i);
                String path = Issues.index("", "trafficClasses", i);
                unique(c.name(), path, classPaths, issues);
                if (classScheduling == ClassScheduling.WEIGHTED) {
                    issues.check(
                            c.priority() >= 1,
                            path + ".priority",
                            c.priority(),
                            ">= 1 with classScheduling weighted (it is the class's relative weight)");
                }
            }
            Set<String> classNames = new LinkedHashSet<>();
            for (TrafficClassConfig c : TrafficClassConfig.builtIns()) {
                classNames.add(c.name());
            }
            for (TrafficClassConfig c : trafficClasses) {
                if (c.name() != null) {
                    classNames.add(c.name());
                }
            }
            Map<String, String> classRefs = new LinkedHashMap<>();
            identity.classValues("identity", classRefs);
            for (Map.Entry<String, String> ref : classRefs.entrySet()) {
                if (!classNames.contains(ref.getValue())) {
                    String near = DidYouMean.nearest(ref.getValue(), classNames);
                    issues.add(
                            ref.getKey(),
                            ref.getValue(),
                            Issues.render(ref.getValue()) + " names no traffic class, "
                                    + (near != null
                                            ? "did you mean " + near + "?"
                                            : "declared: " + String.join(", ", classNames)));
                }
            }

            FallbackChecks.check(fallbacks, providers, classNames, issues);

            PriceConfig.checkNames(prices, "prices", issues);
            priceProviders(providerPaths.keySet(), issues);

            Map<String, String> idPaths = new HashMap<>();
            for (int i = 0; i < providers.size(); i++) {
                List<LimitConfig> list = providers.get(i).limits();
                for (int j = 0; j < list.size(); j++) {
                    uniqueId(list.get(j), Issues.index(Issues.index("", "providers", i), "limits", j), idPaths, issues);
                }
            }
            for (int i = 0; i < topLevel.size(); i++) {
                String path = Issues.index("", "limits", i);
                uniqueId(topLevel.get(i), path, idPaths, issues);
                providerRef(topLevel.get(i), path, providerPaths, issues);
            }
            for (int i = 0; i < tenants.size(); i++) {
                List<LimitConfig> list = tenants.get(i).limits();
                for (int j = 0; j < list.size(); j++) {
                    String path = Issues.index(Issues.index("", "tenants", i), "limits", j);
                    uniqueId(list.get(j), path, idPaths, issues);
                    providerRef(list.get(j), path, providerPaths, issues);
                }
            }
        }

        private static void unique(String name, String path, Map<String, String> seen, Issues issues) {
            if (name == null) {
                return;
            }
            String first = seen.putIfAbsent(name, path);
            if (first != null) {
                issues.add(path + ".name", name, Issues.render(name) + " is already the name of " + first);
            }
        }

        private static void uniqueId(LimitConfig l, String path, Map<String, String> seen, Issues issues) {
            if (l.id() == null) {
                return;
            }
            String first = seen.putIfAbsent(l.id(), path);
            if (first != null) {
                issues.add(
                        path + ".id",
                        l.id(),
                        Issues.render(l.id()) + " is already the id of " + first
                                + (l.hasExplicitId()
                                        ? ""
                                        : " (ids are derived from provider, level, dimension and window);"
                                                + " give one of them an explicit id"));
            }
        }

        private static void providerRef(LimitConfig l, String path, Map<String, String> providerPaths, Issues issues) {
            String p = l.provider();
            if (p == null || providerPaths.containsKey(p)) {
                return;
            }
            String near = DidYouMean.nearest(p, providerPaths.keySet());
            issues.add(
                    path + ".provider",
                    p,
                    Issues.render(p) + " names no declared provider"
                            + (near != null
                                    ? ", did you mean " + near + "?"
                                    : providerPaths.isEmpty()
                                            ? " (no providers are declared)"
                                            : " (declared: " + String.join(", ", providerPaths.keySet()) + ")"));
        }

        /** A price's provider names a provider kind or a declared provider. */
        private void priceProviders(Set<String> providerNames, Issues issues) {
            Set<String> names = new LinkedHashSet<>();
            for (ProviderKind k : ProviderKind.values()) {
                names.add(k.configName());
            }
            names.addAll(providerNames);
            for (int i = 0; i < prices.size(); i++) {
                String p = prices.get(i).provider();
                if (p == null || p.trim().isEmpty() || names.contains(p)) {
                    continue;
                }
                String near = DidYouMean.nearest(p, names);
                issues.add(
                        Issues.index("", "prices", i) + ".provider",
                        p,
                        Issues.render(p) + " names no provider kind or declared provider"
                                + (near != null
                                        ? ", did you mean " + near + "?"
                                        : " (" + String.join(", ", names) + ")"));
            }
        }

        /** Two providers recognised by the same exact host or URL prefix: only one could ever get the calls. */
        private void checkOverlappingMatches(Issues issues) {
            Map<String, Integer> owners = new HashMap<>();
            for (int i = 0; i < providers.size(); i++) {
                ProviderConfig p = providers.get(i);
                List<String> keys = new ArrayList<>();
                for (String h : p.match().hosts()) {
                    keys.add("host " + h);
                }
                for (String u : p.match().urls()) {
                    keys.add("URL " + u);
                }
                for (String key : keys) {
                    Integer first = owners.putIfAbsent(key, i);
                    if (first != null && first != i) {
                        ProviderConfig other = providers.get(first);
                        String where = "providers[" + first + "] (" + other.name() + ")";
                        String what = key.substring(key.indexOf(' ') + 1);
                        if (p.hasDeclaredMatch()) {
                            issues.add(
                                    Issues.index("", "providers", i) + ".match",
                                    what,
                                    Issues.render(what) + " is also matched by " + where
                                            + "; a call can belong to one provider only");
                        } else {
                            issues.add(
                                    Issues.index("", "providers", i) + ".match",
                                    null,
                                    "required here: " + where + " already matches " + what
                                            + "; a call can belong to one provider only");
                        }
                        break;
                    }
                }
            }
        }
    }

    /** Top-level limits as the config holds them: neither a provider's own nor a tenant's. */
    private static List<LimitConfig> topLevel(List<LimitConfig> limits) {
        List<LimitConfig> out = new ArrayList<>(limits.size());
        for (LimitConfig l : limits) {
            out.add(
                    l.mirrorsProvider() || l.scopeValue() != null
                            ? l.toBuilder()
                                    .mirrorsProvider(false)
                                    .scopeValue(null)
                                    .buildUnchecked()
                            : l);
        }
        return out;
    }
}
