package dev.sluice.agent.metrics;

import dev.sluice.config.Dimension;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Usage;
import dev.sluice.core.telemetry.CallListener;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Measures each governed call as it ends: the OpenTelemetry GenAI client instruments (token usage
 * and operation duration) and Sluice's per-call series (calls by outcome, provider refusals by
 * scope and limiter, estimated against reported tokens, cached and reasoning tokens).
 *
 * <p>Each distinct route (provider, operation, model) gets its data points and attribute sets
 * once, and within it each model an answer named ({@code gen_ai.response.model}) its GenAI points;
 * a call then looks its route and its answer's model up in maps keyed by strings it already has and
 * records into points it holds, so recording builds no label list. Routes stop at
 * {@value #MAX_ROUTES}, and the models answers named at {@value #MAX_RESPONSE_MODELS} over all
 * routes: beyond, the model is recorded as {@code _OTHER}, so a caller sending (or a provider
 * answering with) ever new model names cannot grow the series without bound. Provider scopes in
 * the refusal counter stop at {@value #MAX_SCOPES} likewise ({@code other}).
 */
final class CallRecorder implements CallListener {

    static final int MAX_ROUTES = 500;
    static final int MAX_RESPONSE_MODELS = 500;
    static final int MAX_SCOPES = 200;
    /** The conventions' fallback value (for a model, and an error type, past the bounds). */
    static final String OTHER_MODEL = "_OTHER";

    static final String OTHER_SCOPE = "other";

    /** Token kinds on {@code gen_ai.client.token.usage}: the plain pair, then the draft's split. */
    static final int INPUT = 0;

    static final int OUTPUT = 1;
    static final int INPUT_CACHE_READ = 2;
    static final int INPUT_CACHE_CREATION = 3;
    static final int INPUT_UNCACHED = 4;
    static final int OUTPUT_REASONING = 5;
    static final int OUTPUT_NOT_REASONING = 6;
    private static final int KINDS = 7;

    /** Per kind: gen_ai.token.type, gen_ai.token.cache, gen_ai.token.reasoning. */
    private static final String[][] KIND_VALUES = {
        {"input", null, null},
        {"output", null, null},
        {"input", "read", null},
        {"input", "creation", null},
        {"input", "uncached", null},
        {"output", null, "true"},
        {"output", null, "false"},
    };

    private static final String[] OTEL_TOKEN_NAMES = {
        GenAi.OPERATION_NAME,
        GenAi.PROVIDER_NAME,
        GenAi.REQUEST_MODEL,
        GenAi.RESPONSE_MODEL,
        GenAi.TOKEN_TYPE,
        GenAi.TOKEN_CACHE,
        GenAi.TOKEN_REASONING
    };
    private static final String[] OTEL_DURATION_NAMES = {
        GenAi.OPERATION_NAME, GenAi.PROVIDER_NAME, GenAi.REQUEST_MODEL, GenAi.RESPONSE_MODEL, GenAi.ERROR_TYPE
    };

    private final boolean tokenDetail;
    /** Null when no endpoint serves them (OpenTelemetry only). */
    private final Histogram tokens;

    private final Histogram duration;
    private final Counter calls;
    private final Counter refusals;
    private final Counter estimated;
    private final Counter reported;
    private final Histogram estimateRatio;
    private final Counter detailTokens;
    /** Null unless the application's OpenTelemetry meters are recorded into. */
    private final GenAiSink sink;

    private final ConcurrentHashMap<String, ConcurrentHashMap<String, ConcurrentHashMap<String, Route>>> routes =
            new ConcurrentHashMap<>();
    private final AtomicInteger routeCount = new AtomicInteger();
    private final AtomicInteger responseModelCount = new AtomicInteger();
    private final ConcurrentHashMap<String, String> scopes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, CounterDataPoint> refusalPoints = new ConcurrentHashMap<>();

    private final Function<String, ConcurrentHashMap<String, ConcurrentHashMap<String, Route>>> newByProvider =
            new Function<>() {
                @Override
                public ConcurrentHashMap<String, ConcurrentHashMap<String, Route>> apply(String provider) {
                    return new ConcurrentHashMap<>();
                }
            };
    private final Function<String, ConcurrentHashMap<String, Route>> newByOperation = new Function<>() {
        @Override
        public ConcurrentHashMap<String, Route> apply(String operation) {
            return new ConcurrentHashMap<>();
        }
    };

    /**
     * @param registry where the Prometheus instruments are registered; null for none
     * @param sink the OpenTelemetry meters; null for none
     */
    CallRecorder(PrometheusRegistry registry, GenAiSink sink, boolean tokenDetail) {
        this.tokenDetail = tokenDetail;
        this.sink = sink;
        if (registry == null) {
            tokens = duration = estimateRatio = null;
            calls = refusals = estimated = reported = detailTokens = null;
            return;
        }
        Histogram.Builder t = Histogram.builder()
                .name("gen_ai_client_token_usage")
                .help("Number of input and output tokens used (OpenTelemetry gen_ai.client.token.usage, {token})")
                .classicUpperBounds(GenAi.TOKEN_BUCKETS)
                .classicOnly();
        t.withoutExemplars();
        tokens = (tokenDetail
                        ? t.labelNames(
                                "gen_ai_operation_name",
                                "gen_ai_provider_name",
                                "gen_ai_request_model",
                                "gen_ai_response_model",
                                "gen_ai_token_type",
                                "gen_ai_token_cache",
                                "gen_ai_token_reasoning")
                        : t.labelNames(
                                "gen_ai_operation_name",
                                "gen_ai_provider_name",
                                "gen_ai_request_model",
                                "gen_ai_response_model",
                                "gen_ai_token_type"))
                .register(registry);
        Histogram.Builder d = Histogram.builder()
                .name("gen_ai_client_operation_duration_seconds")
                .help("GenAI operation duration (OpenTelemetry gen_ai.client.operation.duration): admission waits and"
                        + " retries included, to the end of the answer's body")
                .unit(Unit.SECONDS)
                .classicUpperBounds(GenAi.DURATION_BUCKETS)
                .classicOnly()
                .labelNames(
                        "gen_ai_operation_name",
                        "gen_ai_provider_name",
                        "gen_ai_request_model",
                        "gen_ai_response_model",
                        "error_type");
        d.withoutExemplars();
        duration = d.register(registry);
        calls = counter(
                registry,
                "sluice_calls",
                "Governed calls by how they ended: success, refused (an HTTP error"
                        + " status handed back, the provider's or Sluice's own), failed (an exception thrown)",
                "provider",
                "outcome");
        refusals = counter(
                registry,
                "sluice_provider_refusals",
                "Attempts a provider refused, by provider scope, status,"
                        + " the limiter its answer named, and whether Sluice retried",
                "provider",
                "scope",
                "status",
                "limiter",
                "retried");
        estimated = counter(
                registry,
                "sluice_estimated_tokens",
                "Tokens Sluice estimated and reserved before calls"
                        + " whose usage the provider reported (input: the prompt estimate; output: the allowance reserved)",
                "provider",
                "gen_ai_token_type");
        reported = counter(
                registry,
                "sluice_reported_tokens",
                "Tokens the provider reported for the same calls, as" + " its rate limiter counts them",
                "provider",
                "gen_ai_token_type");
        Histogram.Builder r = Histogram.builder()
                .name("sluice_estimate_ratio")
                .help("Reported over estimated tokens per call (1 = exact; output below 1 is allowance not used)")
                .classicUpperBounds(0.25, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2, 4)
                .classicOnly()
                .labelNames("provider", "gen_ai_token_type");
        r.withoutExemplars();
        estimateRatio = r.register(registry);
        detailTokens = counter(
                registry,
                "sluice_usage_detail_tokens",
                "Prompt tokens read from or written to the" + " provider's cache, and reasoning tokens, as reported",
                "provider",
                "type");
    }

    private static Counter counter(PrometheusRegistry registry, String name, String help, String... labels) {
        Counter.Builder b = Counter.builder().name(name).help(help).labelNames(labels);
        b.withoutExemplars();
        return b.register(registry);
    }

    // ------------------------------------------------------------------ CallListener

    @Override
    public void callEnded(
            CallContext call, long durationNanos, Usage usage, String responseModel, Demand demand, String errorType) {
        Route route = route(call);
        Answers answers = route.answers(responseModel);
        double seconds = durationNanos / 1e9;
        if (errorType == null) {
            answers.recordDuration(seconds);
        } else {
            answers.failure(errorType).record(seconds);
        }
        if (calls != null) {
            (errorType == null
                            ? route.succeeded
                            : Character.isDigit(errorType.charAt(0)) ? route.refused : route.failed)
                    .inc();
        }
        if (usage != null) {
            recordTokens(route, answers, call, usage);
            if (usage.reportedByProvider() && estimated != null) {
                route.estimate(demand.inputTokens(), usage.inputTokens(), demand.outputTokens(), usage.outputTokens());
            }
        }
    }

    private void recordTokens(Route route, Answers answers, CallContext call, Usage usage) {
        long cached = usage.cachedInputTokens();
        long creation = usage.cacheCreationInputTokens();
        // The conventions count cached tokens in the input; Anthropic's input leaves its cache reads out.
        long input = "anthropic".equals(call.providerKind()) ? usage.inputTokens() + cached : usage.inputTokens();
        long output = usage.outputTokens();
        long reasoning = Math.min(usage.reasoningTokens(), output);
        if (tokenDetail && (cached > 0 || creation > 0)) {
            answers.tokens(INPUT_CACHE_READ, cached);
            answers.tokens(INPUT_CACHE_CREATION, creation);
            answers.tokens(INPUT_UNCACHED, Math.max(0, input - cached - creation));
        } else {
            answers.tokens(INPUT, input);
        }
        if (tokenDetail && reasoning > 0) {
            answers.tokens(OUTPUT_REASONING, reasoning);
            answers.tokens(OUTPUT_NOT_REASONING, output - reasoning);
        } else {
            answers.tokens(OUTPUT, output);
        }
        if (detailTokens != null) {
            if (cached > 0) {
                route.cacheRead.inc(cached);
            }
            if (creation > 0) {
                route.cacheCreation.inc(creation);
            }
            if (reasoning > 0) {
                route.reasoning.inc(reasoning);
            }
        }
    }

    @Override
    public void attemptRefused(
            CallContext call, String providerScopeKey, int status, Dimension limiter, boolean retried) {
        if (refusals == null) {
            return;
        }
        String scope = scopes.get(providerScopeKey);
        if (scope == null) {
            scope = scopes.size() >= MAX_SCOPES ? OTHER_SCOPE : displayScope(providerScopeKey);
            scopes.putIfAbsent(providerScopeKey, scope);
        }
        String limiterName = limiter == null ? "unknown" : limiter.configName();
        String key =
                call.provider() + '\u0000' + scope + '\u0000' + status + '\u0000' + limiterName + '\u0000' + retried;
        CounterDataPoint point = refusalPoints.get(key);
        if (point == null) {
            point = refusals.labelValues(
                    call.provider(), scope, Integer.toString(status), limiterName, Boolean.toString(retried));
            refusalPoints.putIfAbsent(key, point);
        }
        point.inc();
    }

    /** {@code provider|k_3f9a1c|gpt-4o} as JMX and {@code status} show it: {@code provider/k_3f9a1c/gpt-4o}. */
    static String displayScope(String key) {
        return key == null ? OTHER_SCOPE : key.replace('|', '/');
    }

    // ------------------------------------------------------------------ routes

    private Route route(CallContext call) {
        String provider = call.provider();
        String operation = call.operation() == null ? "" : call.operation();
        String model = call.model() == null ? "" : call.model();
        ConcurrentHashMap<String, Route> byModel =
                routes.computeIfAbsent(provider, newByProvider).computeIfAbsent(operation, newByOperation);
        Route r = byModel.get(model);
        if (r != null) {
            return r;
        }
        return bounded(
                byModel,
                model,
                routeCount,
                MAX_ROUTES,
                label -> new Route(call, label.isEmpty() ? OTHER_MODEL : label));
    }

    /**
     * The value {@code byKey} holds for {@code key}, made by {@code make} from its label the first
     * time: the key itself while fewer than {@code most} values were made ({@code made}), then
     * {@link #OTHER_MODEL}, which the keys past the bound share.
     */
    private static <V> V bounded(
            ConcurrentHashMap<String, V> byKey, String key, AtomicInteger made, int most, Function<String, V> make) {
        V known = byKey.get(key);
        if (known != null) {
            return known;
        }
        String label = key;
        if (made.get() >= most) {
            label = OTHER_MODEL;
            V other = byKey.get(OTHER_MODEL);
            if (other != null) {
                byKey.putIfAbsent(key, other);
                return other;
            }
        }
        V fresh = make.apply(label);
        V raced = byKey.putIfAbsent(label, fresh);
        V v = raced == null ? fresh : raced;
        if (raced == null) {
            made.incrementAndGet();
        }
        if (!label.equals(key)) {
            byKey.putIfAbsent(key, v);
        }
        return v;
    }

    /** One provider, operation and model: its data points and attribute sets, made once. */
    private final class Route {
        final String provider;
        final String operationName;
        final String providerName;
        final String model;
        /** The GenAI points of its calls whose answer named no model (or that had no answer), made on first use. */
        private volatile Answers unnamed;
        /** By the model an answer named, as it named it. */
        final ConcurrentHashMap<String, Answers> named = new ConcurrentHashMap<>();

        final CounterDataPoint succeeded;
        final CounterDataPoint refused;
        final CounterDataPoint failed;
        final CounterDataPoint cacheRead;
        final CounterDataPoint cacheCreation;
        final CounterDataPoint reasoning;
        final CounterDataPoint estimatedInput;
        final CounterDataPoint estimatedOutput;
        final CounterDataPoint reportedInput;
        final CounterDataPoint reportedOutput;
        final DistributionDataPoint inputRatio;
        final DistributionDataPoint outputRatio;

        Route(CallContext call, String model) {
            this.provider = call.provider();
            this.operationName = GenAi.operationName(call.operation());
            this.providerName = GenAi.providerName(call);
            this.model = model;
            succeeded = calls == null ? null : calls.labelValues(provider, "success");
            refused = calls == null ? null : calls.labelValues(provider, "refused");
            failed = calls == null ? null : calls.labelValues(provider, "failed");
            cacheRead = detailTokens == null ? null : detailTokens.labelValues(provider, "cache_read");
            cacheCreation = detailTokens == null ? null : detailTokens.labelValues(provider, "cache_creation");
            reasoning = detailTokens == null ? null : detailTokens.labelValues(provider, "reasoning");
            estimatedInput = estimated == null ? null : estimated.labelValues(provider, "input");
            estimatedOutput = estimated == null ? null : estimated.labelValues(provider, "output");
            reportedInput = reported == null ? null : reported.labelValues(provider, "input");
            reportedOutput = reported == null ? null : reported.labelValues(provider, "output");
            inputRatio = estimateRatio == null ? null : estimateRatio.labelValues(provider, "input");
            outputRatio = estimateRatio == null ? null : estimateRatio.labelValues(provider, "output");
        }

        /** The points of the answers that named this model; {@code _OTHER}'s past the bound. */
        Answers answers(String responseModel) {
            if (responseModel == null) {
                Answers u = unnamed;
                if (u == null) {
                    u = new Answers(this, null); // a race makes two over the same data points: harmless
                    unnamed = u;
                }
                return u;
            }
            Answers a = named.get(responseModel);
            return a != null
                    ? a
                    : bounded(
                            named,
                            responseModel,
                            responseModelCount,
                            MAX_RESPONSE_MODELS,
                            label -> new Answers(this, label));
        }

        void estimate(long estimatedIn, long reportedIn, long estimatedOut, long reportedOut) {
            estimatedInput.inc(estimatedIn);
            reportedInput.inc(reportedIn);
            estimatedOutput.inc(estimatedOut);
            reportedOutput.inc(reportedOut);
            if (estimatedIn > 0) {
                inputRatio.observe((double) reportedIn / estimatedIn);
            }
            if (estimatedOut > 0) {
                outputRatio.observe((double) reportedOut / estimatedOut);
            }
        }
    }

    /** A route's GenAI points and attribute sets for one model its answers named (or none), made once. */
    private final class Answers {
        final Route route;
        /** The label value; null for none ({@code ""} in Prometheus, left out in OpenTelemetry). */
        final String responseModel;

        final DistributionDataPoint[] tokenPoints = new DistributionDataPoint[KINDS];
        final Object[] tokenAttributes = new Object[KINDS];
        final DistributionDataPoint okDuration;
        final Object okAttributes;
        final ConcurrentHashMap<String, Failure> failures = new ConcurrentHashMap<>();

        Answers(Route r, String responseModel) {
            this.route = r;
            this.responseModel = responseModel;
            String label = orEmpty(responseModel);
            for (int k = 0; k < KINDS; k++) {
                String[] v = KIND_VALUES[k];
                boolean detail = v[1] != null || v[2] != null;
                if (detail && !tokenDetail) {
                    continue;
                }
                if (tokens != null) {
                    tokenPoints[k] = tokenDetail
                            ? tokens.labelValues(
                                    r.operationName, r.providerName, r.model, label, v[0], orEmpty(v[1]), orEmpty(v[2]))
                            : tokens.labelValues(r.operationName, r.providerName, r.model, label, v[0]);
                }
                if (sink != null) {
                    tokenAttributes[k] = sink.attributes(
                            OTEL_TOKEN_NAMES,
                            new String[] {r.operationName, r.providerName, r.model, responseModel, v[0], v[1], v[2]});
                }
            }
            okDuration =
                    duration == null ? null : duration.labelValues(r.operationName, r.providerName, r.model, label, "");
            okAttributes = sink == null
                    ? null
                    : sink.attributes(
                            OTEL_DURATION_NAMES,
                            new String[] {r.operationName, r.providerName, r.model, responseModel, null});
        }

        void tokens(int kind, long n) {
            DistributionDataPoint p = tokenPoints[kind];
            if (p != null) {
                p.observe(n);
            }
            if (sink != null) {
                sink.recordTokens(n, tokenAttributes[kind]);
            }
        }

        void recordDuration(double seconds) {
            if (okDuration != null) {
                okDuration.observe(seconds);
            }
            if (sink != null) {
                sink.recordDuration(seconds, okAttributes);
            }
        }

        Failure failure(String errorType) {
            Failure f = failures.get(errorType);
            if (f == null) {
                // error types are statuses, exception class names and stream error codes: few
                String type = failures.size() >= 50 ? OTHER_MODEL : errorType;
                f = new Failure(this, type);
                Failure raced = failures.putIfAbsent(errorType, f);
                f = raced == null ? f : raced;
            }
            return f;
        }
    }

    /** The duration of a route's calls that ended with one error type. */
    private final class Failure {
        final DistributionDataPoint point;
        final Object attributes;

        Failure(Answers a, String errorType) {
            Route r = a.route;
            point = duration == null
                    ? null
                    : duration.labelValues(
                            r.operationName, r.providerName, r.model, orEmpty(a.responseModel), errorType);
            attributes = sink == null
                    ? null
                    : sink.attributes(
                            OTEL_DURATION_NAMES,
                            new String[] {r.operationName, r.providerName, r.model, a.responseModel, errorType});
        }

        void record(double seconds) {
            if (point != null) {
                point.observe(seconds);
            }
            if (sink != null) {
                sink.recordDuration(seconds, attributes);
            }
        }
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
