package dev.sluice.core.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.config.Mode;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorBuilder;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderRegistry;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.retry.RetryPolicy;
import dev.sluice.core.telemetry.CallListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The listener an exporter sets hears each call end once, with what the caller got. */
class CallListenerTest {

    private static final String URL = "https://llm.test/v1/chat";

    private final List<String> heard = new ArrayList<>();
    private Governor governor;

    @AfterEach
    void close() {
        governor.close();
    }

    private ExchangeGovernance engine(LimitSpec... limits) {
        GovernorBuilder b = Governor.builder().mode(Mode.ENFORCE);
        for (LimitSpec l : limits) {
            b.limit(l);
        }
        governor = b.build();
        ExchangeGovernance engine = ExchangeGovernance.builder(
                        governor, new ProviderRegistry(List.of(), List.of(new ScriptedProvider())))
                .retryPolicy(
                        new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(40), 0.2, Duration.ofSeconds(5)))
                .build();
        engine.callListener(new CallListener() {
            @Override
            public void callEnded(
                    CallContext call,
                    long durationNanos,
                    Usage usage,
                    String responseModel,
                    Demand estimated,
                    String error) {
                assertThat(durationNanos).isNotNegative();
                heard.add("ended " + call.provider() + " " + (error == null ? "ok" : error)
                        + (usage == null ? "" : " in=" + usage.inputTokens() + " out=" + usage.outputTokens())
                        + (responseModel == null ? "" : " answered by " + responseModel));
            }

            @Override
            public void attemptRefused(CallContext call, String scope, int status, Dimension limiter, boolean retried) {
                heard.add("refused " + status + (retried ? " retried" : " handed back"));
            }
        });
        return engine;
    }

    @Test
    void aSuccessEndsWhenItsBodyWasRead() {
        ExchangeGovernance engine = engine();
        ScriptedTransport.Response r =
                (ScriptedTransport.Response) engine.execute(new ScriptedTransport(URL, "hi").answer(200, "in=7 out=20"))
                        .response();
        assertThat(heard).as("not before the body ends").isEmpty();
        r.read();
        assertThat(heard).containsExactly("ended scripted ok in=7 out=20");
    }

    @Test
    void aSuccessEndsWithTheModelItsAnswerNamed() {
        ExchangeGovernance engine = engine();
        ScriptedTransport.Response r = (ScriptedTransport.Response)
                engine.execute(new ScriptedTransport(URL, "hi").answer(200, "in=7 out=20 model=m-2026-01-15"))
                        .response();
        r.read();
        assertThat(heard).containsExactly("ended scripted ok in=7 out=20 answered by m-2026-01-15");
    }

    @Test
    void refusalsAreHeardPerAttemptAndTheCallEndsOnceWithTheStatusHandedBack() {
        ExchangeGovernance engine = engine();
        engine.execute(new ScriptedTransport(URL, "x")
                .answer(503, "busy")
                .answer(529, "busy")
                .answer(503, "busy"));
        assertThat(heard)
                .containsExactly(
                        "refused 503 retried", "refused 529 retried", "refused 503 handed back", "ended scripted 503");
    }

    @Test
    void aLocalRejectionEndsWithTheStatusTheCallerGets() {
        ExchangeGovernance engine = engine(LimitSpec.perWindow("one", Dimension.REQUESTS, 1, Duration.ofDays(1)));
        ((ScriptedTransport.Response) engine.execute(new ScriptedTransport(URL, "a").answer(200, "in=1 out=1"))
                        .response())
                .read();
        engine.execute(new ScriptedTransport(URL, "b").header("X-Sluice-Class", "interactive"));
        assertThat(heard).containsExactly("ended scripted ok in=1 out=1", "ended scripted 429");
    }

    @Test
    void aFailureEndsWithTheExceptionsClassOnceItIsNotRetried() {
        ExchangeGovernance engine = engine();
        engine.execute(new ScriptedTransport(URL, "x")
                .fail(new IOException("connection reset"))
                .fail(new IOException("connection reset"))
                .fail(new IOException("connection reset")));
        assertThat(heard).containsExactly("ended scripted java.io.IOException");
    }

    @Test
    void aListenerThatThrowsCostsTheCallNothing() {
        ExchangeGovernance engine = engine();
        engine.callListener(new CallListener() {
            @Override
            public void callEnded(
                    CallContext call, long nanos, Usage usage, String model, Demand estimated, String error) {
                throw new IllegalStateException("exporter broke");
            }

            @Override
            public void attemptRefused(CallContext call, String scope, int status, Dimension limiter, boolean retried) {
                throw new IllegalStateException("exporter broke");
            }
        });
        ScriptedTransport.Response r =
                (ScriptedTransport.Response) engine.execute(new ScriptedTransport(URL, "hi").answer(200, "in=7 out=20"))
                        .response();
        r.read();
        assertThat(r.status).isEqualTo(200);
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(engine.faultCount()).isEqualTo(1);
    }
}
