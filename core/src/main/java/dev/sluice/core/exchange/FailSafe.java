package dev.sluice.core.exchange;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.config.FailMode;
import dev.sluice.core.Rejection;
import dev.sluice.core.Rejections;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderBinding;
import dev.sluice.core.provider.RequestFacts;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * What the engine does when Sluice itself fails before an attempt was sent: in fail mode
 * {@code open} (the default) the call goes once, untouched, as if Sluice were not there; in
 * {@code closed} it gets a local rejection in its provider's shape. Every fault is counted and
 * logged by the engine. After an attempt was sent the engine never sends the call again: it hands
 * back that attempt's answer as it came ({@link #handBackUntouched}).
 */
final class FailSafe {

    private final ExchangeGovernance engine;
    private volatile FailMode failMode;

    FailSafe(ExchangeGovernance engine, FailMode failMode) {
        this.engine = engine;
        this.failMode = Objects.requireNonNull(failMode);
    }

    FailMode failMode() {
        return failMode;
    }

    void setFailMode(FailMode mode) {
        this.failMode = Objects.requireNonNull(mode);
    }

    /** A fault before anything was sent: fail open (send it ungoverned) or closed (reject). */
    Step faultBeforeSend(PreparedCall call, String where, Throwable t) {
        engine.fault(call, where, t);
        if (failMode == FailMode.CLOSED) {
            try {
                Rejection r = Rejections.failedClosed(call.context.provider(), call.context);
                LocalAnswer answer = call.provider.adapter().localRejection(r, call.facts);
                return Step.respond(call.transport.localResponse(answer.status(), answer.headers(), answer.body()));
            } catch (Throwable again) {
                engine.fault("building a fail-closed rejection", again);
            }
        }
        CallOutcome plain = ungoverned(call.transport);
        return plain.failure() != null ? Step.fail(plain.failure()) : Step.respond(plain.response());
    }

    /**
     * The asynchronous form of {@link #faultBeforeSend}: returns the step when it is known now
     * (fail closed), or null and hands the ungoverned send's outcome to {@code later}.
     */
    Step faultBeforeSendAsync(PreparedCall call, Throwable t, java.util.function.Consumer<Step> later) {
        Throwable fault = t == null ? new IllegalStateException("no admission") : t;
        if (failMode == FailMode.CLOSED) {
            return faultBeforeSend(call, "admitting a call (fail closed)", fault);
        }
        engine.fault(call, "admitting a call", fault);
        ungovernedAsync(call.transport)
                .whenComplete(
                        (response, error) -> later.accept(error != null ? Step.fail(error) : Step.respond(response)));
        return null;
    }

    /**
     * In fail mode closed, the local rejection for a call Sluice could not even read; null in fail
     * mode open (or when not even that can be built), meaning: let it through.
     */
    Object failClosedAnswer(HttpTransport t) {
        if (failMode != FailMode.CLOSED) {
            return null;
        }
        try {
            ProviderBinding provider = engine.registry().match(t.url());
            Rejection r = Rejections.failedClosed(provider.name(), null);
            LocalAnswer answer = provider.adapter()
                    .localRejection(
                            r, RequestFacts.builder(provider.adapter().kind()).build());
            engine.counters(provider.name()).localRejections.increment();
            return t.localResponse(answer.status(), answer.headers(), answer.body());
        } catch (Throwable again) {
            engine.fault("building a fail-closed rejection", again);
            return null;
        }
    }

    /** Sends the call once, untouched, as if Sluice were not there. */
    CallOutcome ungoverned(HttpTransport t) {
        try {
            Object response = t.send(BodyObserver.IGNORED);
            return CallOutcome.response(handBackUntouched(t, response));
        } catch (Throwable error) {
            if (error instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                return CallOutcome.failure(new InterruptedIOException("interrupted"));
            }
            return CallOutcome.failure(error);
        }
    }

    CompletableFuture<Object> ungovernedAsync(HttpTransport t) {
        try {
            return t.sendAsync(BodyObserver.IGNORED).thenApply(r -> handBackUntouched(t, r));
        } catch (Throwable error) {
            return CompletableFuture.failedFuture(error);
        }
    }

    /** The response as the library gave it, with nothing of Sluice's added (or as it came, if even that fails). */
    static Object handBackUntouched(HttpTransport t, Object response) {
        try {
            return t.handBack(response, Step.NO_HEADERS);
        } catch (Throwable again) {
            return response;
        }
    }
}
