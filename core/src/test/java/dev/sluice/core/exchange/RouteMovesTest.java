package dev.sluice.core.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.config.Dimension;
import dev.sluice.config.FallbackConfig;
import dev.sluice.config.MatchConfig;
import dev.sluice.config.Mode;
import dev.sluice.config.ProviderConfig;
import dev.sluice.config.ProviderKind;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorBuilder;
import dev.sluice.core.Usage;
import dev.sluice.core.fallback.FallbackPlans;
import dev.sluice.core.provider.ProviderBinding;
import dev.sluice.core.provider.ProviderRegistry;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.retry.RetryPolicy;
import dev.sluice.core.telemetry.CallListener;
import dev.sluice.core.telemetry.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call moves to its class's next route inside its one retry loop: an overload moves it as its
 * retry, a spent budget or the last attempt never moves it, a class without routes never moves,
 * and a route with no room at once is left before anything is sent.
 */
class RouteMovesTest {

    private static final String PRIMARY_URL = "https://llm.test/v1/chat";
    private static final String SECOND_URL = "https://llm2.test/v1/chat";

    private final ScriptedProvider adapter = new ScriptedProvider();
    private Governor governor;

    @AfterEach
    void close() {
        if (governor != null) {
            governor.close();
        }
    }

    /** Calls to {@code primary} (llm.test) of class interactive may move to {@code second} (llm2.test). */
    private ExchangeGovernance engine(int maxAttempts, double budgetFloor, LimitSpec... limits) {
        SluiceConfig config = SluiceConfig.builder()
                .providers(List.of(
                        ProviderConfig.builder("primary", ProviderKind.OPENAI_COMPATIBLE)
                                .match(MatchConfig.hosts("llm.test"))
                                .build(),
                        ProviderConfig.builder("second", ProviderKind.OPENAI_COMPATIBLE)
                                .match(MatchConfig.hosts("llm2.test"))
                                .build()))
                .fallbacks(List.of(FallbackConfig.builder("primary")
                        .classes("interactive")
                        .route(FallbackConfig.Route.builder("second")
                                .apiKeyEnv("SECOND_KEY")
                                .build())
                        .build()))
                .build();
        List<ProviderBinding> bindings = List.of(
                ProviderBinding.configured("primary", adapter, MatchConfig.hosts("llm.test"), Map.of(), true),
                ProviderBinding.configured("second", adapter, MatchConfig.hosts("llm2.test"), Map.of(), true));
        GovernorBuilder b = Governor.builder().mode(Mode.ENFORCE);
        for (LimitSpec l : limits) {
            b.limit(l);
        }
        governor = b.build();
        return ExchangeGovernance.builder(governor, new ProviderRegistry(bindings, List.of()))
                .retryPolicy(new RetryPolicy(
                        maxAttempts, Duration.ofMillis(10), Duration.ofMillis(40), 0.2, Duration.ofSeconds(5)))
                .retryBudget(0, budgetFloor, Duration.ofSeconds(10))
                .fallbacks(FallbackPlans.of(config, bindings, Map.of("SECOND_KEY", "k-second"), w -> {}))
                .build();
    }

    private static ScriptedTransport call(String trafficClass) {
        ScriptedTransport t = new ScriptedTransport(PRIMARY_URL, "hello").header("X-Sluice-Class", trafficClass);
        t.reroutable = true;
        return t;
    }

    /** A call the primary refuses with 503 and whose next attempt is served. */
    private static ScriptedTransport overloadedThenServed(String trafficClass) {
        return call(trafficClass).answer(503, "overloaded").answer(200, "in=1 out=2");
    }

    /** A call of class interactive the primary pauses for {@code retryAfterMillis}, whose next attempt is served. */
    private static ScriptedTransport pausedThenServed(long retryAfterMillis) {
        return call("interactive")
                .answer(429, "slow down", "retry-after-ms", Long.toString(retryAfterMillis))
                .answer(200, "in=1 out=2");
    }

    private static ScriptedTransport.Response response(CallOutcome outcome) {
        assertThat(outcome.failure()).isNull();
        return (ScriptedTransport.Response) outcome.response();
    }

    @Test
    void anOverloadedPrimaryMovesTheCallAsItsRetry() {
        ExchangeGovernance engine = engine(3, 1.0);
        ScriptedTransport t = overloadedThenServed("interactive");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(200);
        assertThat(r.header("sluice-route")).isEqualTo("second");
        assertThat(t.sentTo).containsExactly(PRIMARY_URL, SECOND_URL);
        assertThat(t.reroutedHeaders).containsEntry("authorization", "Bearer k-second");
        assertThat(t.discarded).as("the primary's 503 was let go").isEqualTo(1);
        assertThat(engine.fallbacks().counts().moves()).containsEntry("primary -> second (overloaded)", 1L);
        assertThat(engine.counters("second").retries())
                .as("the move is the call's retry")
                .isEqualTo(1);
        r.read();
        assertThat(governor.controls().outstandingPermits()).isZero();
    }

    @Test
    void theRefusalThatMovedACallIsToldAsItsRoutes() {
        ExchangeGovernance engine = engine(3, 1.0);
        List<String> refused = new ArrayList<>();
        engine.callListener(new CallListener() {
            @Override
            public void callEnded(
                    CallContext call,
                    long durationNanos,
                    Usage usage,
                    String responseModel,
                    Demand estimated,
                    String errorType) {}

            @Override
            public void attemptRefused(
                    CallContext call, String providerScopeKey, int status, Dimension limiter, boolean retried) {
                refused.add(call.provider() + " " + status + " in "
                        + providerScopeKey.split("\\|")[0]);
            }
        });
        ScriptedTransport t = overloadedThenServed("interactive");
        response(engine.execute(t)).read();
        assertThat(refused)
                .as("the primary refused, though the call is on the second route now")
                .containsExactly("primary 503 in primary");
        assertThat(governor.stats().decisions().recent(10))
                .filteredOn(d -> d.outcome().equals("provider_503"))
                .extracting(Decision::provider)
                .containsExactly("primary");
    }

    @Test
    void aPauseLongerThanTheClassWaitsOutMovesTheCallAndPausesThePrimaryForEveryone() {
        ExchangeGovernance engine = engine(3, 1.0);
        ScriptedTransport t = pausedThenServed(4000);
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(t.sentTo).containsExactly(PRIMARY_URL, SECOND_URL);
        assertThat(engine.fallbacks().counts().moves()).containsEntry("primary -> second (paused)", 1L);
        assertThat(governor.stats().providerPauses())
                .as("the primary's pause holds for its other callers")
                .isEqualTo(1);
        r.read();
    }

    @Test
    void aShortPauseIsWaitedOutOnTheRoute() {
        ExchangeGovernance engine = engine(3, 1.0);
        ScriptedTransport t = pausedThenServed(20);
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(t.sentTo).as("20 ms is within afterPause (1 s)").containsExactly(PRIMARY_URL, PRIMARY_URL);
        assertThat(r.header("sluice-route")).isEqualTo("primary");
        r.read();
    }

    @Test
    void aSpentRetryBudgetNeverMovesACall() {
        ExchangeGovernance engine = engine(3, 0);
        ScriptedTransport t = call("interactive").answer(503, "overloaded");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(503);
        assertThat(t.sentTo).containsExactly(PRIMARY_URL);
        assertThat(r.header("x-sluice-decision")).isEqualTo("retry_budget_exhausted");
        assertThat(r.header("sluice-route")).isEqualTo("primary");
        assertThat(engine.fallbacks().counts().total()).isZero();
        assertThat(engine.counters("primary").retryBudgetExhausted())
                .as("counted once")
                .isEqualTo(1);
    }

    @Test
    void theLastAttemptNeverMoves() {
        ExchangeGovernance engine = engine(2, 1.0);
        ScriptedTransport t = call("interactive").answer(503, "overloaded").answer(503, "overloaded too");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(503);
        assertThat(t.sentTo)
                .as("retry.maxAttempts counts the attempts of every route")
                .containsExactly(PRIMARY_URL, SECOND_URL);
        assertThat(r.header("sluice-route")).isEqualTo("second");
    }

    @Test
    void aClassWithoutRoutesNeverMoves() {
        ExchangeGovernance engine = engine(3, 1.0);
        ScriptedTransport t = overloadedThenServed("batch");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(200);
        assertThat(t.sentTo).containsExactly(PRIMARY_URL, PRIMARY_URL);
        assertThat(r.header("sluice-route"))
                .as("only classes with routes are told theirs")
                .isNull();
        r.read();
    }

    @Test
    void aRouteWithNoRoomAtOnceIsLeftBeforeAnythingIsSent() {
        ExchangeGovernance engine = engine(
                3,
                1.0,
                LimitSpec.builder("primary-rpd", Dimension.REQUESTS, 1)
                        .window(Duration.ofDays(1))
                        .provider("primary")
                        .build());
        ScriptedTransport first = call("interactive").answer(200, "in=1 out=2");
        response(engine.execute(first)).read();
        ScriptedTransport second = call("interactive").answer(200, "in=1 out=2");
        ScriptedTransport.Response r = response(engine.execute(second));
        assertThat(first.sentTo).containsExactly(PRIMARY_URL);
        assertThat(second.sentTo).containsExactly(SECOND_URL);
        assertThat(r.header("sluice-route")).isEqualTo("second");
        assertThat(engine.counters("second").retries())
                .as("nothing was sent before: no retry")
                .isZero();
        assertThat(engine.fallbacks().counts().moves()).containsEntry("primary -> second (no_room)", 1L);
        r.read();
    }

    @Test
    void aTransportThatCannotRerouteKeepsTheCallOnItsRoute() {
        ExchangeGovernance engine = engine(3, 1.0);
        ScriptedTransport t = overloadedThenServed("interactive");
        t.reroutable = false;
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(t.sentTo).containsExactly(PRIMARY_URL, PRIMARY_URL);
        assertThat(r.header("sluice-route")).isEqualTo("primary");
        r.read();
    }
}
