package dev.sluice.core;

import dev.sluice.config.ClassScheduling;
import dev.sluice.config.EstimationConfig;
import dev.sluice.config.IdentityRule;
import dev.sluice.config.LimitConfig;
import dev.sluice.config.ProviderConfig;
import dev.sluice.config.RetryConfig;
import dev.sluice.config.SluiceConfig;
import dev.sluice.config.TenantConfig;
import dev.sluice.config.TrafficClassConfig;
import dev.sluice.core.estimate.Estimator;
import dev.sluice.core.exchange.ExchangeGovernance;
import dev.sluice.core.fallback.FallbackPlans;
import dev.sluice.core.identity.IdentityResolver;
import dev.sluice.core.identity.IdentitySource;
import dev.sluice.core.price.Prices;
import dev.sluice.core.provider.ProviderAdapter;
import dev.sluice.core.provider.ProviderAdapters;
import dev.sluice.core.provider.ProviderBinding;
import dev.sluice.core.provider.ProviderRegistry;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.retry.RetryPolicy;
import dev.sluice.core.schedule.SystemTimer;
import dev.sluice.core.schedule.Timer;
import dev.sluice.core.schedule.TrafficClass;
import dev.sluice.core.store.QuotaStore;
import dev.sluice.core.store.redis.RedisBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Sluice as configured: the governor and the exchange engine built from a {@link SluiceConfig}.
 * The agent starts one and installs its governance behind the bridge; tests start one directly.
 */
public final class SluiceRuntime implements AutoCloseable {

    private static final LazyLogger LOG = LazyLogger.of(SluiceRuntime.class);

    private final SluiceConfig config;
    private final Governor governor;
    private final ExchangeGovernance governance;

    private SluiceRuntime(SluiceConfig config, Governor governor, ExchangeGovernance governance) {
        this.config = config;
        this.governor = governor;
        this.governance = governance;
    }

    /** Starts Sluice on the system clock, with its one timer thread. */
    public static SluiceRuntime start(SluiceConfig config) {
        return start(config, Clock.SYSTEM, new SystemTimer());
    }

    public static SluiceRuntime start(SluiceConfig config, Clock clock, Timer timer) {
        return start(config, clock, timer, System.getenv());
    }

    /**
     * @param environment the process's environment, where fallback routes' credentials are read
     *     ({@code fallbacks[].routes[].apiKeyEnv})
     */
    public static SluiceRuntime start(
            SluiceConfig config, Clock clock, Timer timer, java.util.Map<String, String> environment) {
        GovernorBuilder g = Governor.builder()
                .clock(clock)
                .timer(timer)
                .mode(config.mode())
                .leaseTimeout(config.leaseTimeout())
                .coldStartWait(config.coldStartWait())
                .adoptHeaderLimits(config.adoptHeaderLimits())
                .weightedClasses(config.classScheduling() == ClassScheduling.WEIGHTED)
                .store(store(config));
        for (LimitConfig limit : config.allLimits()) {
            g.limit(limitSpec(limit));
        }
        for (ProviderConfig p : config.providers()) {
            if (p.ramp() != null) {
                g.ramp(p.name(), p.ramp(), p.requestsPerSecond());
            }
        }
        for (TrafficClassConfig c : config.trafficClasses()) {
            g.trafficClass(
                    new TrafficClass(c.name(), c.priority(), c.maxWait(), c.maxQueueDepth(), c.overloadAction()));
        }
        for (TenantConfig t : config.tenants()) {
            g.tenant(t.name(), t.weight(), t.guaranteedShare());
        }
        Governor governor = g.build();
        governor.controls().currency(config.currency());
        RetryConfig retry = config.retry();
        EstimationConfig e = config.estimation();
        ProviderRegistry registry = registry(config, clock);
        FallbackPlans fallbacks = config.fallbacks().isEmpty()
                ? FallbackPlans.none()
                : FallbackPlans.of(
                        config,
                        registry.configured(),
                        environment,
                        new java.util.function.Consumer<String>() { // not a lambda: see Setting.Field, in config
                            @Override
                            public void accept(String warning) {
                                LOG.get().warn(warning);
                            }
                        });
        ExchangeGovernance governance = ExchangeGovernance.builder(governor, registry)
                .fallbacks(fallbacks)
                .identity(new IdentityResolver(
                        sources(config.identity().tenant()),
                        sources(config.identity().team()),
                        sources(config.identity().trafficClass())))
                .estimator(new Estimator(
                        e.charsPerToken(),
                        e.tokensPerMessage(),
                        e.outputPercentile(),
                        e.defaultOutputTokens(),
                        e.learn(),
                        e.correctionMin(),
                        e.correctionMax()))
                .retryPolicy(new RetryPolicy(
                        retry.maxAttempts(),
                        retry.baseBackoff(),
                        retry.maxBackoff(),
                        retry.hintJitter(),
                        retry.maxHintWait()))
                .retryBudget(retry.budgetRatio(), retry.budgetFloorPerSecond(), retry.budgetWindow())
                .failMode(config.failMode())
                // built by the first call that needs it, or by the agent's start thread once calls are served
                .prices(
                        new Supplier<Prices>() { // not a lambda: see Setting.Field, in config
                            @Override
                            public Prices get() {
                                return Prices.of(config);
                            }
                        })
                .build();
        return new SluiceRuntime(config, governor, governance);
    }

    /** The configured store: Redis when {@code store} is a Redis URL, else every bucket stays in this JVM. */
    static QuotaStore store(SluiceConfig config) {
        return config.store().isRedis() ? RedisBackend.store(config.store()) : QuotaStore.local();
    }

    /** A configured limit as the governor models it. */
    static LimitSpec limitSpec(LimitConfig l) {
        LimitSpec.Builder b = LimitSpec.builder(l.id(), l.dimension(), l.capacity())
                .window(l.window())
                .algorithm(l.algorithm())
                .level(l.level())
                .provider(l.provider())
                .models(l.models())
                .enforced(l.enforced())
                .shared(l.shared())
                .mirrorsProvider(l.mirrorsProvider())
                .burst(l.burst());
        if (l.period() != null) {
            b.calendar(l.period(), l.resetAt(), l.zone());
        } else if (l.resetAt() != null && l.zone() != null) {
            b.dailyReset(l.resetAt(), l.zone());
        }
        if (l.warnAt() != null) {
            b.warnAt(l.warnAt());
        }
        if (l.level() == dev.sluice.config.ScopeLevel.TENANT && l.scopeValue() != null) {
            b.tenant(l.scopeValue());
        }
        return b.build();
    }

    private static ProviderRegistry registry(SluiceConfig config, Clock clock) {
        List<ProviderBinding> configured = new ArrayList<>();
        for (ProviderConfig p : config.providers()) {
            ProviderAdapter adapter = ProviderAdapters.forKind(p.kind().configName(), p.options());
            configured.add(ProviderBinding.configured(p.name(), adapter, p.match(), p.scope(), p.learnFromHeaders()));
        }
        LongSupplier wallClock = new LongSupplier() { // not clock::epochMillis: see Setting.Field, in config
                    @Override
                    public long getAsLong() {
                        return clock.epochMillis();
                    }
                };
        return new ProviderRegistry(configured, ProviderAdapters.known(wallClock));
    }

    private static List<IdentitySource> sources(List<IdentityRule> rules) {
        List<IdentitySource> sources = new ArrayList<>(rules.size());
        for (IdentityRule r : rules) {
            sources.add(source(r));
        }
        return sources;
    }

    private static IdentitySource source(IdentityRule r) {
        switch (r.kind()) {
            case HEADER:
                return IdentitySource.header(r.argument());
            case MDC:
                return IdentitySource.mdc(r.argument());
            case SYSTEM_PROPERTY:
                return IdentitySource.systemProperty(r.argument());
            case THREAD_NAME:
                return IdentitySource.threadName(r::valueFromThreadName, r.argument());
            case CALLING_PACKAGE:
                return IdentitySource.callingPackage(
                        r::valueForClass, r.packageValues().keySet().toString());
            case API_KEY_ID:
                return IdentitySource.apiKeyId();
            case DEFAULT:
                return IdentitySource.constant(r.argument());
            default:
                throw new IllegalArgumentException(
                        "identity rule " + r.kind().toString().toLowerCase(Locale.ROOT));
        }
    }

    public SluiceConfig config() {
        return config;
    }

    public Governor governor() {
        return governor;
    }

    /** What the agent installs behind the bridge. */
    public ExchangeGovernance governance() {
        return governance;
    }

    @Override
    public void close() {
        dev.sluice.core.state.StateKeeper k = stateKeeper;
        if (k != null) {
            k.save();
        }
        governor.close();
    }

    private volatile dev.sluice.core.state.StateKeeper stateKeeper;

    /**
     * Keeps what the governor learns in {@code file} across restarts (config {@code stateFile}):
     * restores it now when it is fresh, saves while calls flow, and on {@link #close()} or
     * {@link #saveState()}. Nothing when the fleet shares a Redis store (the store keeps it) or
     * {@code stateFile} is {@code off}.
     *
     * @return how many scopes and buckets were restored
     */
    public int keepState(java.nio.file.Path file) {
        if (config.store().isRedis() || SluiceConfig.STATE_FILE_OFF.equals(config.stateFile())) {
            return 0;
        }
        dev.sluice.core.state.StateKeeper k = new dev.sluice.core.state.StateKeeper(
                governor, new dev.sluice.core.state.StateFile(file), config.stateSaveInterval());
        int restored = k.restore();
        stateKeeper = k;
        governor.learner()
                .onLearned(
                        new Runnable() { // not k::changed: see Setting.Field, in config
                            @Override
                            public void run() {
                                k.changed();
                            }
                        });
        return restored;
    }

    /** Writes the state file now (the agent does at JVM shutdown); nothing when none is kept. */
    public void saveState() {
        dev.sluice.core.state.StateKeeper k = stateKeeper;
        if (k != null) {
            k.save();
        }
    }
}
