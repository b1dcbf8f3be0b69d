package dev.sluice.config;

import static dev.sluice.config.Setting.Rule.above;
import static dev.sluice.config.Setting.Rule.aboveAtMost;
import static dev.sluice.config.Setting.Rule.atLeast;
import static dev.sluice.config.Setting.Rule.between;
import static dev.sluice.config.Setting.Rule.notNegative;
import static dev.sluice.config.Setting.Rule.positive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Every setting of the configuration, declared once, in the order of the document. A scalar
 * setting is one declaration here (key, type, default, range, live or not, a line of docs) plus
 * its field, getter and builder setter in its {@code *Config} class; from these declarations
 * come the keys allowed in each mapping, binding, the dotted paths that system properties,
 * environment variables and agent arguments may set, the did-you-mean suggestions for both, the
 * range checks, the builders' defaults, and {@code equals}/{@code hashCode} of the sections.
 *
 * <p>Lists and nested objects (providers, limits, identity, tenants, traffic classes, prices) keep their
 * dedicated binding code in {@link ConfigBinder}; only their allowed keys are declared here.
 *
 * <p>The order of declaration is visible: it is the order keys are listed in "keys allowed here"
 * and "settings that can be given here" messages, the order problems found in overrides are
 * reported, and the order overrides appear in {@link SluiceConfig#origin()}. This class must not
 * touch the {@code *Config} classes while it initialises (the anonymous {@link Setting.Field}
 * and {@link Section.Plumbing} classes only name them): their builders read the defaults from
 * here. Those are anonymous classes rather than lambdas and method references because the agent
 * builds this schema as it starts, and the JVM spins a class for each lambda (see {@link
 * Setting.Field}).
 */
final class ConfigSchema {
    /** What a mapping may contain: a {@link Setting}, a {@link Section}, or a {@link Structure}. */
    abstract static class Entry {
        final String key;

        Entry(String key) {
            this.key = key;
        }
    }

    /** A list or mapping bound by dedicated code (items of {@code providers[]}...): its allowed keys. */
    static final class Structure extends Entry {
        final List<String> keys;

        Structure(String key, String... keys) {
            super(key);
            this.keys = List.of(keys);
        }
    }

    private ConfigSchema() {}

    // ---- the top level ----------------------------------------------------------------------

    static final Section<SluiceConfig.Builder, SluiceConfig.Builder> ROOT =
            new Section<>("", "", new Section.Plumbing<>() {
                @Override
                SluiceConfig.Builder newBuilder() {
                    return SluiceConfig.builder();
                }

                @Override
                SluiceConfig.Builder buildUnchecked(SluiceConfig.Builder builder) {
                    return builder;
                }

                @Override
                SluiceConfig.Builder of(SluiceConfig config) {
                    return config.toBuilder();
                }

                @Override
                void attach(SluiceConfig.Builder root, SluiceConfig.Builder section) {
                    throw new UnsupportedOperationException("the top level is not a section of itself");
                }
            });

    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, Mode> MODE = ROOT.choice(
                    "mode", Mode.ENFORCE, Mode.values(), new Setting.Field<>() {
                        @Override
                        Mode get(SluiceConfig.Builder c) {
                            return c.mode;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, Mode v) {
                            b.mode(v);
                        }
                    })
            .live()
            .doc("enforce limits, observe (count and log what would be rejected), or off");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, FailMode> FAIL_MODE = ROOT.choice(
                    "failMode", FailMode.OPEN, FailMode.values(), new Setting.Field<>() {
                        @Override
                        FailMode get(SluiceConfig.Builder c) {
                            return c.failMode;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, FailMode v) {
                            b.failMode(v);
                        }
                    })
            .live()
            .doc("what a fault inside Sluice does to the call: open lets it through, closed fails it");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, LogLevel> LOG_LEVEL = ROOT.choice(
                    "logLevel", LogLevel.INFO, LogLevel.values(), new Setting.Field<>() {
                        @Override
                        LogLevel get(SluiceConfig.Builder c) {
                            return c.logLevel;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, LogLevel v) {
                            b.logLevel(v);
                        }
                    })
            .doc("how much the agent logs");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, Boolean> ADOPT_HEADER_LIMITS = ROOT.flag(
                    "adoptHeaderLimits", false, new Setting.Field<>() {
                        @Override
                        Boolean get(SluiceConfig.Builder c) {
                            return c.adoptHeaderLimits;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, Boolean v) {
                            b.adoptHeaderLimits(v);
                        }
                    })
            .doc("adopt provider-announced limits above the configured ones (else headers only ever lower them)");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, Duration> LEASE_TIMEOUT = ROOT.duration(
                    "leaseTimeout", Duration.ofMinutes(10), new Setting.Field<>() {
                        @Override
                        Duration get(SluiceConfig.Builder c) {
                            return c.leaseTimeout;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, Duration v) {
                            b.leaseTimeout(v);
                        }
                    })
            .mustBe(positive())
            .doc("how long a concurrency slot or stream reservation may stay unreleased before it is freed");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, Duration> COLD_START_WAIT = ROOT.duration(
                    "coldStartWait", Duration.ofSeconds(3), new Setting.Field<>() {
                        @Override
                        Duration get(SluiceConfig.Builder c) {
                            return c.coldStartWait;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, Duration v) {
                            b.coldStartWait(v);
                        }
                    })
            .mustBe(notNegative("0 turns the cold start off"))
            .doc("how long calls to an unknown provider scope wait for the first call's answer before they go anyway");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, String> STATE_FILE = ROOT.text(
                    "stateFile", SluiceConfig.STATE_FILE_AUTO, new Setting.Field<>() {
                        @Override
                        String get(SluiceConfig.Builder c) {
                            return c.stateFile;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, String v) {
                            b.stateFile(v);
                        }
                    })
            .doc("where learned limits, pauses and window counts are kept across restarts: auto, off, or a path");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, Duration> STATE_SAVE_INTERVAL = ROOT.duration(
                    "stateSaveInterval", Duration.ofSeconds(15), new Setting.Field<>() {
                        @Override
                        Duration get(SluiceConfig.Builder c) {
                            return c.stateSaveInterval;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, Duration v) {
                            b.stateSaveInterval(v);
                        }
                    })
            .mustBe(positive())
            .doc("how often the state file is written while calls flow (and always at shutdown)");

    // ---- jmx --------------------------------------------------------------------------------

    static final Section<JmxConfig, JmxConfig.Builder> JMX =
            ROOT.section("jmx", new Section.Plumbing<JmxConfig, JmxConfig.Builder>() {
                @Override
                JmxConfig.Builder newBuilder() {
                    return new JmxConfig.Builder();
                }

                @Override
                JmxConfig buildUnchecked(JmxConfig.Builder builder) {
                    return builder.buildUnchecked();
                }

                @Override
                JmxConfig of(SluiceConfig config) {
                    return config.jmx();
                }

                @Override
                void attach(SluiceConfig.Builder root, JmxConfig section) {
                    root.jmx(section);
                }
            });

    static final Setting<JmxConfig, JmxConfig.Builder, Boolean> JMX_ENABLED = JMX.flag(
                    "enabled", true, new Setting.Field<>() {
                        @Override
                        Boolean get(JmxConfig c) {
                            return c.enabled();
                        }

                        @Override
                        void set(JmxConfig.Builder b, Boolean v) {
                            b.enabled(v);
                        }
                    })
            .doc("register the MXBeans (domain dev.sluice), so operators can read and tune without a restart");

    // ---- metrics ----------------------------------------------------------------------------

    static final Section<MetricsConfig, MetricsConfig.Builder> METRICS =
            ROOT.section("metrics", new Section.Plumbing<MetricsConfig, MetricsConfig.Builder>() {
                @Override
                MetricsConfig.Builder newBuilder() {
                    return MetricsConfig.builder();
                }

                @Override
                MetricsConfig buildUnchecked(MetricsConfig.Builder builder) {
                    return builder.buildUnchecked();
                }

                @Override
                MetricsConfig of(SluiceConfig config) {
                    return config.metrics();
                }

                @Override
                void attach(SluiceConfig.Builder root, MetricsConfig section) {
                    root.metrics(section);
                }
            });

    static final Setting<MetricsConfig, MetricsConfig.Builder, Integer> METRICS_PORT = METRICS.whole(
                    "port", 0, new Setting.Field<>() {
                        @Override
                        Integer get(MetricsConfig c) {
                            return c.port();
                        }

                        @Override
                        void set(MetricsConfig.Builder b, Integer v) {
                            b.port(v);
                        }
                    })
            .shorthand()
            .mustBe(between(0, 65_535))
            .doc("the Prometheus endpoint's port (-javaagent:sluice-agent.jar=metrics=9464); 0 = no endpoint");
    static final Setting<MetricsConfig, MetricsConfig.Builder, String> METRICS_BIND = METRICS.text(
                    "bind", "0.0.0.0", new Setting.Field<>() {
                        @Override
                        String get(MetricsConfig c) {
                            return c.bind();
                        }

                        @Override
                        void set(MetricsConfig.Builder b, String v) {
                            b.bind(v);
                        }
                    })
            .also(new Setting.Check<>() {
                @Override
                public void check(MetricsConfig metrics, String path, Issues issues) {
                    metrics.checkBind(path, issues);
                }
            })
            .doc("the address the endpoint listens on: 0.0.0.0 (every interface, a pod's scrape target) or 127.0.0.1");
    static final Setting<MetricsConfig, MetricsConfig.Builder, String> METRICS_PATH = METRICS.text(
                    "path", "/metrics", new Setting.Field<>() {
                        @Override
                        String get(MetricsConfig c) {
                            return c.path();
                        }

                        @Override
                        void set(MetricsConfig.Builder b, String v) {
                            b.path(v);
                        }
                    })
            .also(new Setting.Check<>() {
                @Override
                public void check(MetricsConfig metrics, String path, Issues issues) {
                    metrics.checkPath(path, issues);
                }
            })
            .doc("the endpoint's path");
    static final Setting<MetricsConfig, MetricsConfig.Builder, Integer> METRICS_MAX_TENANTS = METRICS.whole(
                    "maxTenants", 50, new Setting.Field<>() {
                        @Override
                        Integer get(MetricsConfig c) {
                            return c.maxTenants();
                        }

                        @Override
                        void set(MetricsConfig.Builder b, Integer v) {
                            b.maxTenants(v);
                        }
                    })
            .mustBe(atLeast(0))
            .doc("tenants that get a label of their own (configured ones first); the rest are summed as other");
    static final Setting<MetricsConfig, MetricsConfig.Builder, Boolean> METRICS_TOKEN_DETAIL = METRICS.flag(
                    "tokenDetail", false, new Setting.Field<>() {
                        @Override
                        Boolean get(MetricsConfig c) {
                            return c.tokenDetail();
                        }

                        @Override
                        void set(MetricsConfig.Builder b, Boolean v) {
                            b.tokenDetail(v);
                        }
                    })
            .doc(
                    "split gen_ai token usage by cache (read, creation, uncached) and reasoning, as the conventions' draft does");
    static final Setting<MetricsConfig, MetricsConfig.Builder, Boolean> METRICS_OPEN_TELEMETRY = METRICS.flag(
                    "openTelemetry", false, new Setting.Field<>() {
                        @Override
                        Boolean get(MetricsConfig c) {
                            return c.openTelemetry();
                        }

                        @Override
                        void set(MetricsConfig.Builder b, Boolean v) {
                            b.openTelemetry(v);
                        }
                    })
            .doc("also record the gen_ai instruments into the application's global OpenTelemetry MeterProvider");

    // ---- store ------------------------------------------------------------------------------

    static final Section<StoreConfig, StoreConfig.Builder> STORE =
            ROOT.section("store", new Section.Plumbing<StoreConfig, StoreConfig.Builder>() {
                @Override
                StoreConfig.Builder newBuilder() {
                    return StoreConfig.builder();
                }

                @Override
                StoreConfig buildUnchecked(StoreConfig.Builder builder) {
                    return builder.buildUnchecked();
                }

                @Override
                StoreConfig of(SluiceConfig config) {
                    return config.store();
                }

                @Override
                void attach(SluiceConfig.Builder root, StoreConfig section) {
                    root.store(section);
                }
            });

    static final Setting<StoreConfig, StoreConfig.Builder, String> STORE_URL = STORE.text(
                    "url", StoreConfig.LOCAL, new Setting.Field<>() {
                        @Override
                        String get(StoreConfig c) {
                            return c.url();
                        }

                        @Override
                        void set(StoreConfig.Builder b, String v) {
                            b.url(v);
                        }
                    })
            .shorthand()
            .also(new Setting.Check<>() {
                @Override
                public void check(StoreConfig store, String path, Issues issues) {
                    store.checkUrl(path, issues);
                }
            })
            .doc("local, or a redis:// or rediss:// URL shared by the fleet (may hold a password: never logged)");
    static final Setting<StoreConfig, StoreConfig.Builder, Integer> STORE_INSTANCES = STORE.whole(
                    "instances", 0, new Setting.Field<>() {
                        @Override
                        Integer get(StoreConfig c) {
                            return c.instances();
                        }

                        @Override
                        void set(StoreConfig.Builder b, Integer v) {
                            b.instances(v);
                        }
                    })
            .mustBe(atLeast(0))
            .doc("fleet size for the fallback share capacity/N when the store is unreachable; 0 = learn it");
    static final Setting<StoreConfig, StoreConfig.Builder, Duration> STORE_TIMEOUT = STORE.duration(
                    "timeout", Duration.ofMillis(100), new Setting.Field<>() {
                        @Override
                        Duration get(StoreConfig c) {
                            return c.timeout();
                        }

                        @Override
                        void set(StoreConfig.Builder b, Duration v) {
                            b.timeout(v);
                        }
                    })
            .mustBe(positive())
            .doc("how long one store call may take before the store is treated as unreachable");
    static final Setting<StoreConfig, StoreConfig.Builder, Double> STORE_LEASE_CHUNK = STORE.number(
                    "leaseChunk", 0.05, new Setting.Field<>() {
                        @Override
                        Double get(StoreConfig c) {
                            return c.leaseChunk();
                        }

                        @Override
                        void set(StoreConfig.Builder b, Double v) {
                            b.leaseChunk(v);
                        }
                    })
            .mustBe(between(0, 0.5))
            .doc("fraction of a shared bucket one JVM may lease to admit locally at high rates; 0 = no leasing");

    // ---- lists and nested objects, bound by dedicated code ----------------------------------

    static final Structure PROVIDERS = ROOT.structure(
            "providers", "name", "kind", "match", "scope", "learnFromHeaders", "limits", "options", "ramp");
    static final List<String> RAMP_KEYS = List.of(
            "enabled",
            "growth",
            "interval",
            "floor",
            "startShare",
            "over",
            "rejectedShare",
            "queueWaitP95",
            "latencyP95",
            "onTrip");
    static final List<String> MATCH_KEYS = List.of("hosts", "urls");
    static final Structure LIMITS = ROOT.structure(
            "limits",
            "id",
            "dimension",
            "capacity",
            "amount",
            "window",
            "period",
            "algorithm",
            "resetAt",
            "zone",
            "level",
            "provider",
            "models",
            "enforced",
            "shared",
            "warnAt",
            "burst");
    static final Structure IDENTITY = ROOT.structure("identity", "tenant", "team", "trafficClass");
    static final Structure TENANTS = ROOT.structure("tenants", "name", "weight", "guaranteedShare", "limits");

    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, ClassScheduling> CLASS_SCHEDULING = ROOT.choice(
                    "classScheduling", ClassScheduling.STRICT, ClassScheduling.values(), new Setting.Field<>() {
                        @Override
                        ClassScheduling get(SluiceConfig.Builder c) {
                            return c.classScheduling;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, ClassScheduling v) {
                            b.classScheduling(v);
                        }
                    })
            .doc("strict: a class waits while a higher one has work; weighted: priorities are relative weights");

    static final Structure TRAFFIC_CLASSES =
            ROOT.structure("trafficClasses", "name", "priority", "maxWait", "maxQueueDepth", "overloadAction");

    static final Structure FALLBACKS =
            ROOT.structure("fallbacks", "from", "classes", "afterPause", "otherModels", "routes");
    static final List<String> FALLBACK_ROUTE_KEYS = List.of("name", "to", "url", "deployment", "model", "apiKeyEnv");

    // ---- retry ------------------------------------------------------------------------------

    static final Section<RetryConfig, RetryConfig.Builder> RETRY = ROOT.section(
                    "retry", new Section.Plumbing<RetryConfig, RetryConfig.Builder>() {
                        @Override
                        RetryConfig.Builder newBuilder() {
                            return RetryConfig.builder();
                        }

                        @Override
                        RetryConfig buildUnchecked(RetryConfig.Builder builder) {
                            return builder.buildUnchecked();
                        }

                        @Override
                        RetryConfig of(SluiceConfig config) {
                            return config.retry();
                        }

                        @Override
                        void attach(SluiceConfig.Builder root, RetryConfig section) {
                            root.retry(section);
                        }
                    })
            .abbreviated();

    static final Setting<RetryConfig, RetryConfig.Builder, Integer> RETRY_MAX_ATTEMPTS = RETRY.whole(
                    "maxAttempts", 3, new Setting.Field<>() {
                        @Override
                        Integer get(RetryConfig c) {
                            return c.maxAttempts();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Integer v) {
                            b.maxAttempts(v);
                        }
                    })
            .mustBe(atLeast(1))
            .doc("attempts per call including the first (3 = the first plus 2 retries, the SDKs' own default)");
    static final Setting<RetryConfig, RetryConfig.Builder, Double> RETRY_BUDGET_RATIO = RETRY.number(
                    "budgetRatio", 0.2, new Setting.Field<>() {
                        @Override
                        Double get(RetryConfig c) {
                            return c.budgetRatio();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Double v) {
                            b.budgetRatio(v);
                        }
                    })
            .mustBe(between(0, 10))
            .doc("retries allowed as a fraction of recent first attempts, per provider scope");
    static final Setting<RetryConfig, RetryConfig.Builder, Double> RETRY_BUDGET_FLOOR = RETRY.number(
                    "budgetFloorPerSecond", 1.0, new Setting.Field<>() {
                        @Override
                        Double get(RetryConfig c) {
                            return c.budgetFloorPerSecond();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Double v) {
                            b.budgetFloorPerSecond(v);
                        }
                    })
            .mustBe(atLeast(0))
            .doc("retries per second always allowed, so low-traffic scopes can still retry");
    static final Setting<RetryConfig, RetryConfig.Builder, Duration> RETRY_BUDGET_WINDOW = RETRY.duration(
                    "budgetWindow", Duration.ofSeconds(10), new Setting.Field<>() {
                        @Override
                        Duration get(RetryConfig c) {
                            return c.budgetWindow();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Duration v) {
                            b.budgetWindow(v);
                        }
                    })
            .mustBe(positive())
            .doc("how far back \"recent first attempts\" reaches");
    static final Setting<RetryConfig, RetryConfig.Builder, Duration> RETRY_BASE_BACKOFF = RETRY.duration(
                    "baseBackoff", Duration.ofMillis(500), new Setting.Field<>() {
                        @Override
                        Duration get(RetryConfig c) {
                            return c.baseBackoff();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Duration v) {
                            b.baseBackoff(v);
                        }
                    })
            .mustBe(positive())
            .doc("the first backoff when the provider gives no wait hint; doubles per attempt, with full jitter");
    static final Setting<RetryConfig, RetryConfig.Builder, Duration> RETRY_MAX_BACKOFF = RETRY.duration(
                    "maxBackoff", Duration.ofSeconds(30), new Setting.Field<>() {
                        @Override
                        Duration get(RetryConfig c) {
                            return c.maxBackoff();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Duration v) {
                            b.maxBackoff(v);
                        }
                    })
            .mustBe(positive())
            .also(new Setting.Check<>() {
                @Override
                public void check(RetryConfig retry, String path, Issues issues) {
                    RetryConfig.checkBackoffOrder(retry, path, issues);
                }
            })
            .doc("the longest backoff; at least baseBackoff");
    static final Setting<RetryConfig, RetryConfig.Builder, Double> RETRY_HINT_JITTER = RETRY.number(
                    "hintJitter", 0.2, new Setting.Field<>() {
                        @Override
                        Double get(RetryConfig c) {
                            return c.hintJitter();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Double v) {
                            b.hintJitter(v);
                        }
                    })
            .mustBe(between(0, 1))
            .doc("up to this fraction of a provider's wait hint is added, so callers do not return in lockstep");
    static final Setting<RetryConfig, RetryConfig.Builder, Duration> RETRY_MAX_HINT_WAIT = RETRY.duration(
                    "maxHintWait", Duration.ofSeconds(60), new Setting.Field<>() {
                        @Override
                        Duration get(RetryConfig c) {
                            return c.maxHintWait();
                        }

                        @Override
                        void set(RetryConfig.Builder b, Duration v) {
                            b.maxHintWait(v);
                        }
                    })
            .mustBe(notNegative(null))
            .doc("a wait hint longer than this is not waited for: the provider's answer goes back to the caller");

    // ---- estimation -------------------------------------------------------------------------

    static final Section<EstimationConfig, EstimationConfig.Builder> ESTIMATION = ROOT.section(
                    "estimation", new Section.Plumbing<EstimationConfig, EstimationConfig.Builder>() {
                        @Override
                        EstimationConfig.Builder newBuilder() {
                            return EstimationConfig.builder();
                        }

                        @Override
                        EstimationConfig buildUnchecked(EstimationConfig.Builder builder) {
                            return builder.buildUnchecked();
                        }

                        @Override
                        EstimationConfig of(SluiceConfig config) {
                            return config.estimation();
                        }

                        @Override
                        void attach(SluiceConfig.Builder root, EstimationConfig section) {
                            root.estimation(section);
                        }
                    })
            .abbreviated();

    static final Setting<EstimationConfig, EstimationConfig.Builder, Double> CHARS_PER_TOKEN = ESTIMATION
            .number("charsPerToken", 4.0, new Setting.Field<>() {
                @Override
                Double get(EstimationConfig c) {
                    return c.charsPerToken();
                }

                @Override
                void set(EstimationConfig.Builder b, Double v) {
                    b.charsPerToken(v);
                }
            })
            .mustBe(above(0))
            .doc("characters of serialized request per input token before the learned correction");
    static final Setting<EstimationConfig, EstimationConfig.Builder, Integer> TOKENS_PER_MESSAGE = ESTIMATION
            .whole("tokensPerMessage", 4, new Setting.Field<>() {
                @Override
                Integer get(EstimationConfig c) {
                    return c.tokensPerMessage();
                }

                @Override
                void set(EstimationConfig.Builder b, Integer v) {
                    b.tokensPerMessage(v);
                }
            })
            .mustBe(atLeast(0))
            .doc("framing tokens each chat message costs on top of its content");
    static final Setting<EstimationConfig, EstimationConfig.Builder, Double> OUTPUT_PERCENTILE = ESTIMATION
            .number("outputPercentile", 0.95, new Setting.Field<>() {
                @Override
                Double get(EstimationConfig c) {
                    return c.outputPercentile();
                }

                @Override
                void set(EstimationConfig.Builder b, Double v) {
                    b.outputPercentile(v);
                }
            })
            .mustBe(between(0.5, 1))
            .doc("percentile of a route's observed output tokens reserved when the request sets no lower max tokens");
    static final Setting<EstimationConfig, EstimationConfig.Builder, Integer> DEFAULT_OUTPUT_TOKENS = ESTIMATION
            .whole("defaultOutputTokens", 1024, new Setting.Field<>() {
                @Override
                Integer get(EstimationConfig c) {
                    return c.defaultOutputTokens();
                }

                @Override
                void set(EstimationConfig.Builder b, Integer v) {
                    b.defaultOutputTokens(v);
                }
            })
            .mustBe(above(0))
            .doc("output tokens reserved for a route with no max tokens and nothing learned yet");
    static final Setting<EstimationConfig, EstimationConfig.Builder, Boolean> LEARN = ESTIMATION
            .flag("learn", true, new Setting.Field<>() {
                @Override
                Boolean get(EstimationConfig c) {
                    return c.learn();
                }

                @Override
                void set(EstimationConfig.Builder b, Boolean v) {
                    b.learn(v);
                }
            })
            .doc("correct estimates from observed usage");
    static final Setting<EstimationConfig, EstimationConfig.Builder, Double> CORRECTION_MIN = ESTIMATION
            .number("correctionMin", 0.5, new Setting.Field<>() {
                @Override
                Double get(EstimationConfig c) {
                    return c.correctionMin();
                }

                @Override
                void set(EstimationConfig.Builder b, Double v) {
                    b.correctionMin(v);
                }
            })
            .mustBe(aboveAtMost(0, 1))
            .doc("lower bound of the learned input correction factor, so one odd response cannot skew estimates far");
    static final Setting<EstimationConfig, EstimationConfig.Builder, Double> CORRECTION_MAX = ESTIMATION
            .number("correctionMax", 2.0, new Setting.Field<>() {
                @Override
                Double get(EstimationConfig c) {
                    return c.correctionMax();
                }

                @Override
                void set(EstimationConfig.Builder b, Double v) {
                    b.correctionMax(v);
                }
            })
            .mustBe(atLeast(1))
            .doc("upper bound of the learned input correction factor");

    // ---- money ------------------------------------------------------------------------------

    /** What a currency may be called: a short name such as USD, EUR or CREDITS. */
    private static final Pattern CURRENCY_NAME = Pattern.compile("[A-Za-z0-9]{1,12}");

    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, String> CURRENCY = ROOT.text(
                    "currency", "USD", new Setting.Field<>() {
                        @Override
                        String get(SluiceConfig.Builder c) {
                            return c.currency;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, String v) {
                            b.currency(v);
                        }
                    })
            .mustBe(Setting.Rule.of("1 to 12 letters or digits, such as USD or EUR", new Predicate<>() {
                @Override
                public boolean test(String c) {
                    return CURRENCY_NAME.matcher(c).matches();
                }
            }))
            .doc("the unit spend limits and prices are in; the built-in price table is in USD and applies only then");
    static final Structure PRICES = ROOT.structure(
            "prices",
            "model",
            "provider",
            "input",
            "cachedInput",
            "cacheWrite",
            "cacheWrite1h",
            "output",
            "longContext",
            "serviceTiers",
            "aliases");
    static final List<String> PRICE_LONG_CONTEXT_KEYS =
            List.of("above", "input", "cachedInput", "cacheWrite", "cacheWrite1h", "output");
    static final Setting<SluiceConfig.Builder, SluiceConfig.Builder, String> PRICES_FILE = ROOT.text(
                    "pricesFile", "", new Setting.Field<>() {
                        @Override
                        String get(SluiceConfig.Builder c) {
                            return c.pricesFile;
                        }

                        @Override
                        void set(SluiceConfig.Builder b, String v) {
                            b.pricesFile(v);
                        }
                    })
            .doc("a price table file (LiteLLM's model_prices_and_context_window.json, or the built-in table's"
                    + " format) that replaces and completes the built-in table; prices: entries override both");

    // ---- derived views ----------------------------------------------------------------------

    /** The sections of scalar settings, the top level first. */
    static List<Section<?, ?>> sections() {
        List<Section<?, ?>> out = new ArrayList<>();
        out.add(ROOT);
        for (Entry e : ROOT.entries()) {
            if (e instanceof Section) {
                out.add((Section<?, ?>) e);
            }
        }
        return out;
    }

    /** Every scalar setting, in document order. */
    static List<Setting<?, ?, ?>> settings() {
        List<Setting<?, ?, ?>> out = new ArrayList<>();
        for (Entry e : ROOT.entries()) {
            if (e instanceof Setting) {
                out.add((Setting<?, ?, ?>) e);
            } else if (e instanceof Section) {
                out.addAll(((Section<?, ?>) e).settings());
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The dotted paths that can be set from outside the file, each mapped to the setting's path
     * (a section's shorthand, {@code store}, maps to {@code store.url}), in document order.
     */
    static Map<String, String> overridePaths() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Entry e : ROOT.entries()) {
            if (e instanceof Setting) {
                out.put(((Setting<?, ?, ?>) e).path, ((Setting<?, ?, ?>) e).path);
            } else if (e instanceof Section) {
                Section<?, ?> section = (Section<?, ?>) e;
                if (section.shorthand != null) {
                    out.put(section.path, section.shorthand.path);
                }
                for (Setting<?, ?, ?> s : section.settings()) {
                    out.put(s.path, s.path);
                }
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** The settable paths as a message lists them: {@code mode, ..., store, store.url, ..., retry.*}. */
    static String settableList() {
        List<String> out = new ArrayList<>();
        for (Entry e : ROOT.entries()) {
            if (e instanceof Setting) {
                out.add(((Setting<?, ?, ?>) e).path);
            } else if (e instanceof Section) {
                Section<?, ?> section = (Section<?, ?>) e;
                if (section.abbreviated) {
                    out.add(section.path + ".*");
                    continue;
                }
                if (section.shorthand != null) {
                    out.add(section.path);
                }
                for (Setting<?, ?, ?> s : section.settings()) {
                    out.add(s.path);
                }
            }
        }
        return String.join(", ", out);
    }
}
