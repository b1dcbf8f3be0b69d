package dev.sluice.core.exchange;

import com.github.benmanes.caffeine.cache.Cache;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.bootstrap.RetryLayers;
import dev.sluice.config.FailMode;
import dev.sluice.config.Mode;
import dev.sluice.core.Admission;
import dev.sluice.core.AnswerLearner;
import dev.sluice.core.Caches;
import dev.sluice.core.CallContext;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Governor;
import dev.sluice.core.LazyLogger;
import dev.sluice.core.LearnedBudget;
import dev.sluice.core.Permit;
import dev.sluice.core.ProviderAnswer;
import dev.sluice.core.Rejection;
import dev.sluice.core.Rejections;
import dev.sluice.core.Usage;
import dev.sluice.core.estimate.Estimator;
import dev.sluice.core.fallback.FallbackPlans;
import dev.sluice.core.fallback.FallbackReason;
import dev.sluice.core.identity.IdentityResolver;
import dev.sluice.core.price.Prices;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.ProviderRegistry;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.wire.RefusalAnnotation;
import dev.sluice.core.retry.ConnectionFailures;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.RetryBudget;
import dev.sluice.core.retry.RetryDecision;
import dev.sluice.core.retry.RetryPolicy;
import dev.sluice.core.telemetry.CallListener;
import dev.sluice.core.telemetry.Decision;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The governor as hooks see it: runs each logical LLM call from recognition to settlement. It
 * recognises the provider, resolves the caller's identity, estimates the demand, waits for
 * admission, sends attempts through the library's transport, learns from the provider's headers,
 * settles usage from the body, and owns the only retry loop (capacity refusals pause the provider
 * scope for everyone; overloads back off; non-retryable answers return after one attempt).
 *
 * <p>It never breaks the call: a fault before anything was sent lets the call through
 * ungoverned (fail open) or answers a local rejection (fail closed); a fault after an attempt was
 * sent still hands that attempt's response back. Thread-safe.
 */
public final class ExchangeGovernance implements Governance {

    private static final LazyLogger LOG = LazyLogger.of(ExchangeGovernance.class);

    /**
     * Header on every refusal or failure Sluice hands back, and on a success whose answer carried
     * it: Sluice owns retries, the SDK must not add its own.
     */
    static final String SHOULD_RETRY = "x-should-retry";

    /** Header naming Sluice's decision on a provider refusal it hands back. */
    static final String DECISION = "x-sluice-decision";

    private final Governor governor;
    /** What the governor learns from the provider's answers. */
    private final AnswerLearner learner;

    private final CallPreparation preparation;
    private final Pricing pricing;
    private final FailSafe failSafe;
    private final ProviderRegistry registry;
    private final IdentityResolver identity;
    private final Estimator estimator;
    private final RetryPolicy retryPolicy;
    /** Where calls of some classes may move, and the counts of their moves. */
    private final FallbackPlans fallbacks;

    private final RouteMoves moves;
    private final double budgetRatio;
    private final double budgetFloorPerSecond;
    private final Duration budgetWindow;
    /** Provider scopes whose retry budgets are kept (about 400 bytes each); beyond, the least used start afresh. */
    static final int MAX_RETRY_BUDGETS = 10_000;

    private final Cache<String, RetryBudget> budgets;
    private final Map<String, ProviderCounters> counters = new ConcurrentHashMap<>();

    // Anonymous classes, not lambdas: the first call meets them on the application's start-up,
    // where the JVM spins a class for each lambda (docs/startup-figures.md).
    private static final Function<String, ProviderCounters> NEW_COUNTERS = new Function<>() {
        @Override
        public ProviderCounters apply(String provider) {
            return new ProviderCounters();
        }
    };
    private final Function<String, RetryBudget> newBudget = new Function<>() {
        @Override
        public RetryBudget apply(String scope) {
            return new RetryBudget(budgetRatio, budgetFloorPerSecond, budgetWindow);
        }
    };
    private final RateLimitedLog faults = new RateLimitedLog(LOG);
    /** Told how each call ended (an exporter's); null for none, the usual case. */
    private volatile CallListener callListener;

    /** Faults inside Sluice before a provider was known (the per-provider ones are in its counters). */
    private final java.util.concurrent.atomic.LongAdder unattributedFaults =
            new java.util.concurrent.atomic.LongAdder();

    private ExchangeGovernance(Builder b) {
        this.governor = Objects.requireNonNull(b.governor, "governor");
        this.learner = governor.learner();
        this.registry = Objects.requireNonNull(b.registry, "registry");
        this.identity = b.identity;
        this.estimator = b.estimator;
        this.retryPolicy = b.retryPolicy;
        this.fallbacks = b.fallbacks;
        this.moves = new RouteMoves(this);
        this.budgetRatio = b.budgetRatio;
        this.budgetFloorPerSecond = b.budgetFloorPerSecond;
        this.budgetWindow = b.budgetWindow;
        this.failSafe = new FailSafe(this, b.failMode);
        this.preparation = new CallPreparation(this);
        this.pricing = new Pricing(b.prices);
        // Read on every call, so bounded by size alone (see Caches); expiry would free nothing: a
        // budget idle past its window is as good as a new one.
        this.budgets = Caches.builder().maximumSize(MAX_RETRY_BUDGETS).build();
    }

    public static Builder builder(Governor governor, ProviderRegistry registry) {
        return new Builder(governor, registry);
    }

    public Governor governor() {
        return governor;
    }

    public Estimator estimator() {
        return estimator;
    }

    /** The fallback routes calls may move to, and the counts of their moves. */
    public FallbackPlans fallbacks() {
        return fallbacks;
    }

    Pricing pricing() {
        return pricing;
    }

    /** The price table calls are priced with, built now if no call has yet. */
    public Prices prices() {
        return pricing.prices();
    }

    /** Builds the price table now if no call has yet: for a start-up thread, once the governor serves calls. */
    public void preparePrices() {
        pricing.prices();
    }

    /**
     * Prices calls from now on with this table (a reloaded config's prices); calls admitted before
     * keep the worst case they reserved and are charged at their settlement with the price they
     * were admitted with.
     */
    public void replacePrices(Prices prices) {
        pricing.replace(prices);
    }

    /** Calls whose model had no price: charged nothing against spend limits. */
    public long unpricedCalls() {
        return pricing.unpricedCalls();
    }

    /** Calls whose model had no price, by {@code provider/model}: what an operator should price. */
    public java.util.Map<String, Long> unpricedModels() {
        return pricing.unpricedModels();
    }

    /** Where the prices come from (built-in table, pricesFile, config entries), once the table is read; null before. */
    public String priceTables() {
        return pricing.tablesIfRead();
    }

    IdentityResolver identity() {
        return identity;
    }

    public ProviderRegistry registry() {
        return registry;
    }

    public FailMode failMode() {
        return failSafe.failMode();
    }

    public void setFailMode(FailMode mode) {
        failSafe.setFailMode(mode);
    }

    /** Counters of one provider's calls (created on first use). */
    public ProviderCounters counters(String provider) {
        return counters.computeIfAbsent(provider, NEW_COUNTERS);
    }

    /** Every provider seen so far, with its counters. */
    public Map<String, ProviderCounters> allCounters() {
        return java.util.Collections.unmodifiableMap(counters);
    }

    /** Retries the provider scope of this call may still spend now. */
    public double retryBudgetRemaining(String providerScopeKey) {
        RetryBudget b = budgets.getIfPresent(providerScopeKey);
        return b == null
                ? budgetFloorPerSecond * budgetWindow.toNanos() / 1e9
                : b.remaining(governor.clock().nanoTime());
    }

    /**
     * Sets what is told how each governed call ends (null: nobody, the default). One at a time:
     * an exporter that wants several fans out itself.
     */
    public void callListener(CallListener listener) {
        this.callListener = listener;
    }

    // ------------------------------------------------------------------ Governance

    @Override
    public boolean governs(String url) {
        try {
            return governor.mode() != Mode.OFF && registry.match(url) != null;
        } catch (Throwable t) {
            fault("recognising a URL", t);
            return false;
        }
    }

    @Override
    public CallOutcome execute(HttpTransport transport) {
        PreparedCall call;
        try {
            call = preparation.prepare(transport);
        } catch (Throwable t) {
            fault("preparing a call", t);
            Object rejected = failSafe.failClosedAnswer(transport);
            return rejected != null ? CallOutcome.response(rejected) : failSafe.ungoverned(transport);
        }
        if (call == null) {
            return failSafe.ungoverned(transport);
        }
        if (ownsRetries()) {
            RetryLayers.governedOnThisThread(); // a retry loop above on this thread must not retry it
        }
        while (true) {
            Step step = attemptBlocking(call);
            switch (step.kind) {
                case RESPOND:
                    return CallOutcome.response(step.response);
                case FAIL:
                    return CallOutcome.failure(decidedFailure(step.failure));
                default:
                    if (step.waitNanos > 0 && !parkUntil(call, step.waitNanos)) {
                        Thread.currentThread().interrupt();
                        return CallOutcome.failure(new InterruptedIOException("interrupted while waiting to retry"));
                    }
            }
        }
    }

    @Override
    public CompletableFuture<Object> executeAsync(HttpTransport transport) {
        PreparedCall call;
        try {
            call = preparation.prepare(transport);
        } catch (Throwable t) {
            fault("preparing a call", t);
            Object rejected = failSafe.failClosedAnswer(transport);
            if (rejected != null) {
                return CompletableFuture.completedFuture(rejected);
            }
            call = null;
        }
        if (call == null) {
            return failSafe.ungovernedAsync(transport);
        }
        return new AsyncExchange(this, call).start();
    }

    @Override
    public void onHookFault(String where, Throwable fault) {
        fault("hook " + where, fault);
    }

    @Override
    public boolean recognisesEndpoint(String host, int port) {
        try {
            return governor.mode() != Mode.OFF && registry.recognisesEndpoint(host, port);
        } catch (Throwable t) {
            fault("recognising a connection", t);
            return false;
        }
    }

    /** Once per host and client (the bridge counts the rest): the operator must know these calls bypass Sluice. */
    @Override
    public void onUngovernedConnection(String host, String client) {
        try {
            LOG.get()
                    .warn(
                            "calls to {} through {} are not governed: Sluice has no hook for that client, so they are"
                                    + " neither paced nor retried by it (JMX Governor.UngovernedConnections counts them)",
                            host,
                            client);
        } catch (Throwable ignored) {
            // logging must never reach the connecting thread
        }
    }

    /** In mode enforce Sluice's loop is the only one: SDK and client retry layers stand aside. */
    @Override
    public boolean ownsRetries() {
        return governor.mode() == Mode.ENFORCE;
    }

    /**
     * A governed call ends with this failure after Sluice's own retry decision: registered so that
     * an SDK loop above recognises it and does not retry it once more.
     */
    Throwable decidedFailure(Throwable failure) {
        if (ownsRetries()) {
            RetryLayers.decided(failure);
        }
        return failure;
    }

    // ------------------------------------------------------------------ one call

    /** The fail-safe side of a call: ungoverned sends and fail-closed answers. */
    FailSafe failSafe() {
        return failSafe;
    }

    /** One attempt on the caller's thread: admission (waiting), send, and what to do next. */
    Step attemptBlocking(PreparedCall call) {
        if (call.transport.isCancelled()) {
            return failed(call, new InterruptedIOException("call cancelled"));
        }
        Admission admission;
        try {
            int next = call.nextUsableRoute();
            if (next >= 0) {
                // a call never queues on a route that has a next one
                admission = governor.tryAdmit(call.context, call.demand);
                if (!admission.isAdmitted() && moveBeforeSend(call, next, admission)) {
                    return Step.retry(0);
                }
            } else {
                admission = null;
            }
            if (admission == null || !admission.isAdmitted()) {
                admission = governor.admit(call.context, call.demand, call.admissionDeadline());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(call, new InterruptedIOException("interrupted while waiting for admission"));
        } catch (Throwable t) {
            return failSafe.faultBeforeSend(call, "admitting a call", t);
        }
        if (!admission.isAdmitted()) {
            return localRejection(call, admission.rejection());
        }
        Permit permit = admission.permit();
        SettlingObserver observer = beforeSend(call, permit);
        Object response;
        try {
            response = call.transport.send(observer);
        } catch (Throwable error) {
            return afterSendFailure(call, permit, observer, error);
        }
        return afterResponse(call, permit, observer, response);
    }

    /** The call's route cannot admit it at once: true when it moved to route {@code next}. */
    boolean moveBeforeSend(PreparedCall call, int next, Admission refused) {
        FallbackReason reason = RouteMoves.reasonFor(call, refused.rejection());
        return reason != null && moves.moveTo(call, next, reason);
    }

    /**
     * The provider refused an attempt in a way that moves the call (an overload; a pause longer
     * than the class waits out): the next attempt, on the next route, when the one retry decision
     * allows a retry now; null when the call stays on its route (and the usual decision applies).
     */
    private Step moveAfterRefusal(PreparedCall call, Permit permit, ProviderError error) {
        int next = call.nextUsableRoute();
        FallbackReason reason = next < 0 ? null : RouteMoves.reasonFor(call, error);
        if (reason == null) {
            return null;
        }
        // the wait is the route's, not the next one's: decided as a retry without it
        RetryDecision decision = retryOrStop(call, permit, error, true);
        if (!decision.retries()) {
            return null;
        }
        if (reason == FallbackReason.PAUSED) {
            learner.pauseProviderScope(call.context, error.retryAfterMillis() * 1_000_000L);
        }
        return moves.moveTo(call, next, reason) ? Step.retry(0) : retryStep(call, decision);
    }

    /**
     * The headers an answer goes back with: for a call of a class with fallback routes, also the
     * route that served it ({@code sluice-route}), counted.
     */
    private Map<String, String> routed(PreparedCall call, Map<String, String> headers) {
        if (call.fallbacks == null) {
            return headers;
        }
        moves.counts().served(call.routeName);
        Map<String, String> with = new HashMap<>(headers);
        with.put(RouteMoves.ROUTE_HEADER, call.routeName);
        return with;
    }

    SettlingObserver beforeSend(PreparedCall call, Permit permit) {
        call.attempts++;
        call.attemptSentNanos = governor.clock().nanoTime();
        governor.rampAdmitted(call.context.provider(), permit.waitedNanos());
        ProviderCounters c = counters(call.provider.name());
        c.attempts.increment();
        if (call.attempts == 1) {
            budget(call, permit).firstAttempt(governor.clock().nanoTime());
        } else {
            c.retries.increment();
        }
        return new SettlingObserver(this, call, permit);
    }

    /** The provider answered (any status): learn from it, then hand back or decide to retry. */
    Step afterResponse(PreparedCall call, Permit permit, SettlingObserver observer, Object response) {
        HttpTransport t = call.transport;
        boolean enforce = governor.mode() == Mode.ENFORCE;
        try {
            int status = t.status(response);
            governor.rampAnswered(
                    call.context.provider(), status, governor.clock().nanoTime() - call.attemptSentNanos);
            boolean success = status >= 200 && status < 300;
            if (success && !observer.claimAnswer()) {
                // the body ended first and its end counted the usage; the governor is told the
                // rest now, in the order it always is: the figures, then the permit released
                Headers headers = observer.bodyHeaders();
                learn(call, permit, headers, governor.clock().epochMillis());
                learner.answered(permit, true);
                observer.callerDone();
                boolean override = enforce && headers.contains(SHOULD_RETRY);
                return Step.respond(t.handBack(response, routed(call, override ? okHeaders() : Step.NO_HEADERS)));
            }
            Headers headers = TransportHeaders.ofResponse(t, response);
            long nowMillis = governor.clock().epochMillis();
            learn(call, permit, headers, nowMillis);
            if (success) {
                learner.answered(permit, true);
                observer.headersKnown(headers);
                // An SDK retries a success only when the answer says x-should-retry: true, so only
                // then is it overridden; any other success goes back as it came, with no copy of
                // its headers made to add one (a microsecond or two a call in every client).
                boolean override = enforce && headers.contains(SHOULD_RETRY);
                return Step.respond(t.handBack(response, routed(call, override ? okHeaders() : Step.NO_HEADERS)));
            }
            byte[] body = t.errorBody(response);
            ProviderError error = call.provider.adapter().classifyError(status, headers, body, nowMillis);
            countRefusal(call, status);
            permit.settleRefused(true);
            learner.answered(permit, false);
            if (enforce && error.outcome() == OutcomeClass.RETRYABLE_CAPACITY) {
                // admitted with room: someone else took it, or a limit nobody announced
                learner.capacityRefused(
                        permit, error.limiter(), !call.provider.adapter().announcesLimits());
            }
            if (!enforce) {
                refused(call, permit, status, error, false);
                ended(call, null, null, StatusNames.of(status));
                return Step.respond(t.handBack(response, routed(call, Step.NO_HEADERS)));
            }
            if (call.fallbacks != null) {
                String from = call.routeName;
                Step moved = moveAfterRefusal(call, permit, error);
                if (moved != null) {
                    refused(call, permit, status, error, true);
                    explain(
                            permit.context(),
                            "provider_" + status,
                            error + " on " + from + " -> next route " + call.routeName);
                    t.discard(response);
                    return moved;
                }
            }
            RetryDecision decision = retryOrStop(call, permit, error);
            refused(call, permit, status, error, decision.retries());
            GatewayDecision stopped = handedBackAs(decision);
            explain(
                    call,
                    "provider_" + status,
                    error
                            + (decision.retries()
                                    ? " -> retry after " + decision.waitNanos() / 1_000_000 + " ms (attempt "
                                            + (call.attempts + 1) + ")"
                                    : " -> handed back, " + stopped.wireName() + ": " + decision.why()));
            if (decision.retries()) {
                t.discard(response);
                return retryStep(call, decision);
            }
            ended(call, null, null, StatusNames.of(status));
            return Step.respond(handBackRefusal(call, response, status, error, body, stopped));
        } catch (Throwable fault) {
            // an attempt went out: whatever failed here, the caller gets that attempt's answer
            fault(call, "reading a provider response", fault);
            permit.cancel();
            return Step.respond(FailSafe.handBackUntouched(t, response));
        }
    }

    /**
     * The provider's refusal as the caller gets it once Sluice has decided not to retry: the
     * provider's status, headers and error body, with the {@code sluice} object added to that body
     * (docs/design.md, Local rejections) so the SDK's usual exception says why Sluice stopped. Handed back as it
     * came when the body cannot be annotated (not JSON, compressed).
     */
    private Object handBackRefusal(
            PreparedCall call,
            Object response,
            int status,
            ProviderError error,
            byte[] body,
            GatewayDecision decision) {
        HttpTransport t = call.transport;
        CallContext c = call.context;
        Map<String, String> setHeaders = new HashMap<>(routed(call, okHeaders()));
        setHeaders.put(DECISION, decision.wireName());
        Rejection why = Rejections.forCall(decision, c)
                .route(call.fallbacks == null ? null : call.routeName)
                .limiter(error.limiter())
                .retryAfterMillis(error.hasWaitHint() ? error.retryAfterMillis() : 0)
                .estimatedInputTokens(call.facts.estimatedInputTokens())
                .detail(call.attempts + (call.attempts == 1 ? " attempt" : " attempts"))
                .build();
        byte[] annotated = RefusalAnnotation.annotate(body, why, call.facts, error.outcome());
        if (annotated == null) {
            return t.handBack(response, setHeaders);
        }
        Map<String, List<String>> headers = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, List<String>> h : t.responseHeaders(response).entrySet()) {
            String name = h.getKey().toLowerCase(java.util.Locale.ROOT);
            if (!name.equals("content-length")
                    && !name.equals("transfer-encoding")
                    && !name.equals("content-encoding")
                    && !name.startsWith(":")
                    && !setHeaders.containsKey(name)) {
                headers.put(h.getKey(), h.getValue());
            }
        }
        for (Map.Entry<String, String> h : setHeaders.entrySet()) {
            headers.put(h.getKey(), List.of(h.getValue()));
        }
        Object local = t.localResponse(status, headers, annotated);
        t.discard(response);
        return local;
    }

    /**
     * The attempt failed: retry a transient connection failure before any response, fail anything
     * else. A success whose body broke while the client read it (a body shorter than its length, a
     * cut stream) is never sent again: the provider did, and billed, the work; the caller gets the
     * failure, as without Sluice, and the reservation is kept as used.
     *
     * @param observer the attempt's body observer, null when it failed before one was made
     */
    Step afterSendFailure(PreparedCall call, Permit permit, SettlingObserver observer, Throwable error) {
        Step step = afterFailedAttempt(call, permit, observer, error);
        if (step.kind == Step.Kind.FAIL) {
            ended(call, null, null, step.failure.getClass().getName());
        }
        return step;
    }

    private Step afterFailedAttempt(PreparedCall call, Permit permit, SettlingObserver observer, Throwable error) {
        if (observer != null && observer.sawBody()) {
            observer.brokeBeforeHandBack();
            try {
                learner.answered(permit, true);
                explain(
                        call,
                        "body_broke",
                        "a 2xx answer broke while read (" + error.getClass().getSimpleName() + ") -> not sent again");
            } catch (Throwable fault) {
                fault(call, "handling a broken body", fault);
            }
            return Step.fail(error);
        }
        permit.settleRefused(true);
        try {
            learner.answered(permit, false);
            if (error instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                return Step.fail(new InterruptedIOException("interrupted"));
            }
            if (governor.mode() != Mode.ENFORCE || !ConnectionFailures.mayRetry(error)) {
                return Step.fail(error);
            }
            counters(call.provider.name()).connectionFailures.increment();
            ProviderError overload = ProviderError.builder(OutcomeClass.RETRYABLE_OVERLOAD)
                    .message(String.valueOf(error.getMessage()))
                    .build();
            Step moved = call.fallbacks == null ? null : moveAfterRefusal(call, permit, overload);
            if (moved != null) {
                return moved;
            }
            RetryDecision decision = retryOrStop(call, permit, overload);
            return decision.retries() ? retryStep(call, decision) : Step.fail(error);
        } catch (Throwable fault) {
            fault(call, "handling a failed attempt", fault);
            return Step.fail(error);
        }
    }

    /** The one retry decision ({@link RetryDecision#decide}) for this call's attempt, counted. */
    private RetryDecision retryOrStop(PreparedCall call, Permit permit, ProviderError error) {
        return retryOrStop(call, permit, error, false);
    }

    /**
     * @param withoutHint decide as if the provider named no wait, for a move to another route (which
     *     waits for none); a stop is then not counted, since the usual decision follows and counts it
     */
    private RetryDecision retryOrStop(PreparedCall call, Permit permit, ProviderError error, boolean withoutHint) {
        long hintNanos = error.hasWaitHint() && !withoutHint ? error.retryAfterMillis() * 1_000_000L : -1;
        RetryDecision.Attempt attempt = new RetryDecision.Attempt(
                error.outcome(), hintNanos, call.attempts, call.transport.isCancelled(), call.deadlineNanos);
        RetryDecision decision = RetryDecision.decide(
                attempt, retryPolicy, budget(call, permit), governor.clock().nanoTime());
        if (decision.stop() == RetryDecision.Stop.BUDGET_EXHAUSTED && !withoutHint) {
            counters(call.provider.name()).retryBudgetExhausted.increment();
        }
        return decision;
    }

    /** The next attempt; a pause of the whole provider scope does the waiting when the decision says so. */
    private Step retryStep(PreparedCall call, RetryDecision decision) {
        if (decision.pausesScope()) {
            learner.pauseProviderScope(call.context, decision.waitNanos());
            return Step.retry(0);
        }
        return Step.retry(decision.waitNanos());
    }

    /** How a refusal Sluice stopped on is handed back: the provider's answer, or the budget's word. */
    private static GatewayDecision handedBackAs(RetryDecision decision) {
        return decision.stop() == RetryDecision.Stop.BUDGET_EXHAUSTED
                ? GatewayDecision.RETRY_BUDGET_EXHAUSTED
                : GatewayDecision.ADMITTED_THEN_PROVIDER_REJECTED;
    }

    private Map<String, String> okHeaders() {
        return Map.of(SHOULD_RETRY, "false");
    }

    Step localRejection(PreparedCall call, Rejection rejection) {
        counters(call.provider.name()).localRejections.increment();
        try {
            Rejection why = call.fallbacks == null
                    ? rejection
                    : rejection.toBuilder().route(call.routeName).build();
            LocalAnswer answer = call.provider.adapter().localRejection(why, call.facts);
            ended(call, null, null, StatusNames.of(answer.status()));
            Map<String, List<String>> headers = answer.headers();
            if (call.fallbacks != null) {
                headers = new java.util.LinkedHashMap<>(headers);
                headers.put(RouteMoves.ROUTE_HEADER, List.of(call.routeName));
                moves.counts().served(call.routeName);
            }
            return Step.respond(call.transport.localResponse(answer.status(), headers, answer.body()));
        } catch (Throwable t) {
            return failSafe.faultBeforeSend(call, "building a local rejection", t);
        }
    }

    private void learn(PreparedCall call, Permit answered, Headers headers, long nowMillis) {
        if (!call.provider.learnFromHeaders()) {
            return;
        }
        RateLimitSnapshot snapshot = call.provider.adapter().readRateLimits(headers, nowMillis);
        String organization = call.provider.adapter().organization(headers);
        if (snapshot.isEmpty() && organization == null) {
            return;
        }
        List<LearnedBudget> budgets = new ArrayList<>(snapshot.budgets().size());
        for (RateLimitSnapshot.Budget b : snapshot.budgets()) {
            budgets.add(new LearnedBudget(b.name(), b.dimension(), b.limit(), b.remaining(), b.windowMillis()));
        }
        learner.learn(new ProviderAnswer(
                call.context,
                budgets,
                organization,
                answered,
                call.provider.adapter().processingMillis(headers)));
    }

    void explain(PreparedCall call, String outcome, String explanation) {
        explain(call.context, outcome, explanation);
    }

    /** {@code c}: who the decision was about, the call's route before it moved when it did. */
    private void explain(CallContext c, String outcome, String explanation) {
        governor.stats()
                .decisions()
                .record(new Decision(
                        governor.clock().epochMillis(),
                        outcome,
                        c.provider(),
                        c.model(),
                        c.tenant(),
                        c.trafficClass(),
                        0,
                        explanation));
    }

    private void countRefusal(PreparedCall call, int status) {
        ProviderCounters c = counters(call.provider.name());
        if (status == 429) {
            c.status429.increment();
        } else if (status == 503) {
            c.status503.increment();
        } else if (status == 529) {
            c.status529.increment();
        } else {
            c.otherErrors.increment();
        }
    }

    /** A body was settled: learn the estimate's error and count the tokens. */
    void settled(PreparedCall call, Usage usage, ProviderError streamError, String responseModel) {
        ProviderCounters c = counters(call.provider.name());
        c.inputTokens.add(usage.inputTokens());
        c.outputTokens.add(usage.outputTokens());
        if (streamError != null) {
            c.streamErrors.increment();
        }
        estimator.learn(
                call.route, call.facts, usage.reportedByProvider() ? usage.inputTokens() : -1, usage.outputTokens());
        ended(call, usage, responseModel, streamError == null ? null : StatusNames.ofStreamError(streamError));
    }

    /** A call that ends here with this failure thrown to its caller. */
    Step failed(PreparedCall call, Throwable failure) {
        ended(call, null, null, failure.getClass().getName());
        return Step.fail(failure);
    }

    /** Tells the listener, if any, that the call ended; its faults never reach the call. */
    private void ended(PreparedCall call, Usage usage, String responseModel, String errorType) {
        CallListener l = callListener;
        if (l == null) {
            return;
        }
        try {
            l.callEnded(
                    call.context,
                    governor.clock().nanoTime() - call.startedNanos,
                    usage,
                    responseModel,
                    call.demand,
                    errorType);
        } catch (Throwable t) {
            fault(call, "telling how a call ended", t);
        }
    }

    private void refused(PreparedCall call, Permit permit, int status, ProviderError error, boolean retried) {
        CallListener l = callListener;
        if (l == null) {
            return;
        }
        try {
            // the permit's context, not the call's: a call that moved on is on another route by now
            l.attemptRefused(permit.context(), permit.providerScopeKey(), status, error.limiter(), retried);
        } catch (Throwable t) {
            fault(call, "telling of a refused attempt", t);
        }
    }

    /**
     * The retry budget of the provider scope the attempt was admitted in: an organization's once an
     * answer named it, so the keys of one organization share one budget, as they share its limits.
     */
    private RetryBudget budget(PreparedCall call, Permit permit) {
        String scope = permit == null ? call.context.providerScopeKey() : permit.providerScopeKey();
        return budgets.get(scope, newBudget);
    }

    /**
     * Waits on the caller's thread (virtual-thread friendly); false when interrupted. Real time
     * must pass here, so this reads the system clock rather than the governor's.
     */
    private boolean parkUntil(PreparedCall call, long waitNanos) {
        long end = System.nanoTime() + waitNanos;
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, left);
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return true;
    }

    /**
     * A fault inside Sluice where no call is known yet (recognising a URL, reading a request, in a
     * hook): counted and logged (once a minute per place and cause); the call goes through.
     */
    void fault(String where, Throwable t) {
        unattributedFaults.increment();
        log(where, t);
    }

    /** A fault inside Sluice while governing this call: counted on its provider and logged. */
    void fault(PreparedCall call, String where, Throwable t) {
        counters(call.provider.name()).faults.increment();
        log(where, t);
    }

    private void log(String where, Throwable t) {
        faults.warn(where + ':' + t.getClass().getName(), "fault while " + where + "; the call went through", t);
    }

    /** Every fault inside Sluice since start: each provider's, and those before a provider was known. */
    public long faultCount() {
        long sum = unattributedFaults.sum();
        for (ProviderCounters c : counters.values()) {
            sum += c.faults.sum();
        }
        return sum;
    }

    RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** Builds an {@link ExchangeGovernance}. */
    public static final class Builder {
        private final Governor governor;
        private final ProviderRegistry registry;
        private IdentityResolver identity = IdentityResolver.defaults();
        private Estimator estimator = Estimator.defaults();
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private double budgetRatio = 0.2;
        private double budgetFloorPerSecond = 1.0;
        private Duration budgetWindow = Duration.ofSeconds(10);
        private FailMode failMode = FailMode.OPEN;
        private FallbackPlans fallbacks = FallbackPlans.none();
        /** Not {@code Prices::defaults}: each builder would spin it as the agent starts (see NEW_COUNTERS). */
        private static final Supplier<Prices> BUILT_IN_PRICES = new Supplier<>() {
            @Override
            public Prices get() {
                return Prices.defaults();
            }
        };

        private Supplier<Prices> prices = BUILT_IN_PRICES;

        private Builder(Governor governor, ProviderRegistry registry) {
            this.governor = governor;
            this.registry = registry;
        }

        public Builder identity(IdentityResolver v) {
            this.identity = Objects.requireNonNull(v);
            return this;
        }

        public Builder estimator(Estimator v) {
            this.estimator = Objects.requireNonNull(v);
            return this;
        }

        public Builder retryPolicy(RetryPolicy v) {
            this.retryPolicy = Objects.requireNonNull(v);
            return this;
        }

        /** The retry budget per provider scope: {@code ratio} of recent first attempts plus a floor. */
        public Builder retryBudget(double ratio, double floorPerSecond, Duration window) {
            this.budgetRatio = ratio;
            this.budgetFloorPerSecond = floorPerSecond;
            this.budgetWindow = window;
            return this;
        }

        /** The price table calls are charged from (default: the built-in table). */
        public Builder prices(Prices v) {
            Objects.requireNonNull(v);
            this.prices = () -> v;
            return this;
        }

        /**
         * The price table, built when a call first needs it (a governor with budgets: its first
         * admission; otherwise its first settlement) or when {@link #preparePrices()} is asked.
         */
        public Builder prices(Supplier<Prices> v) {
            this.prices = Objects.requireNonNull(v);
            return this;
        }

        /** Where calls of some classes may move when their provider cannot take them (default: nowhere). */
        public Builder fallbacks(FallbackPlans v) {
            this.fallbacks = Objects.requireNonNull(v);
            return this;
        }

        public Builder failMode(FailMode v) {
            this.failMode = Objects.requireNonNull(v);
            return this;
        }

        public ExchangeGovernance build() {
            return new ExchangeGovernance(this);
        }
    }
}
