package dev.sluice.core.exchange;

import dev.sluice.core.CallContext;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.fallback.FallbackCounts;
import dev.sluice.core.fallback.FallbackReason;
import dev.sluice.core.fallback.FallbackRoute;
import dev.sluice.core.fallback.Rewritten;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.retry.OutcomeClass;

/**
 * Moves a call to its next fallback route, inside its one retry loop. A call not yet sent moves
 * when its route cannot admit it at once (it never queues on a route that has a next one, and
 * waits on its last), except for a provider pause the class waits out ({@code afterPause}); a call
 * sent moves when the provider answers overloaded, or pauses the route for longer than that, and
 * only when the one retry decision would try again anyway: the move is that retry, from the same
 * attempt count, budget and deadline, so routes never multiply attempts and a spent budget never
 * moves a call.
 */
final class RouteMoves {

    /** The header naming the route that served a call of a class with fallback routes. */
    static final String ROUTE_HEADER = "sluice-route";

    private final ExchangeGovernance engine;

    RouteMoves(ExchangeGovernance engine) {
        this.engine = engine;
    }

    /**
     * Why a route's refusal to admit the call at once moves it, or null when the call stays: a
     * spend budget or an operator's pause holds on every route, and a provider pause no longer than
     * the class's {@code afterPause} is waited out where the call is.
     */
    static FallbackReason reasonFor(PreparedCall call, Rejection rejection) {
        GatewayDecision d = rejection.decision();
        if (d == GatewayDecision.BUDGET_EXHAUSTED || d == GatewayDecision.PAUSED) {
            return null;
        }
        if (rejection.providerPause()) {
            return rejection.retryAfterMillis() * 1_000_000L > call.fallbacks.afterPauseNanos()
                    ? FallbackReason.PAUSED
                    : null;
        }
        return FallbackReason.NO_ROOM;
    }

    /**
     * The reason a provider's refusal moves the call, or null when it stays: an overload, or a
     * pause longer than the class waits out.
     */
    static FallbackReason reasonFor(PreparedCall call, ProviderError error) {
        if (error.outcome() == OutcomeClass.RETRYABLE_OVERLOAD) {
            return FallbackReason.OVERLOADED;
        }
        if (error.outcome() == OutcomeClass.RETRYABLE_CAPACITY
                && error.hasWaitHint()
                && error.retryAfterMillis() * 1_000_000L > call.fallbacks.afterPauseNanos()) {
            return FallbackReason.PAUSED;
        }
        return null;
    }

    /**
     * Moves the call to route {@code index} of its plan: rewrites the request, re-routes the
     * transport, and counts the call on the route's provider from now on. False when the rewrite
     * failed (the call stays where it is).
     */
    boolean moveTo(PreparedCall call, int index, FallbackReason reason) {
        FallbackRoute route = call.fallbacks.routes().get(index);
        Rewritten r;
        try {
            r = route.rewrite(call.transport.url(), call.body, call.body == null ? 0 : call.body.length);
            call.transport.reroute(r.url(), r.headers(), r.body());
        } catch (Throwable t) {
            engine.fault(call, "moving a call to route " + route.name(), t);
            call.nextRoute = call.fallbacks.routes().size(); // do not try again
            return false;
        }
        String from = call.routeName;
        call.context = onRoute(call.context, route);
        call.provider = route.target();
        call.routeName = route.name();
        call.nextRoute = index + 1;
        counts().moved(from, route.name(), reason);
        engine.counters(route.target().name()).calls.increment();
        engine.explain(call, "fallback", from + " -> " + route.name() + " (" + reason.wireName() + ")");
        return true;
    }

    FallbackCounts counts() {
        return engine.fallbacks().counts();
    }

    /** The call as the route's provider counts it: its provider, key, model and deployment; who it is for kept. */
    private static CallContext onRoute(CallContext c, FallbackRoute route) {
        String keyId = route.apiKeyId() != null ? route.apiKeyId() : c.apiKeyId();
        String org = route.target().scope().get("organization");
        return CallContext.builder(route.target().name())
                .providerKind(route.target().adapter().kind())
                .model(route.model() != null ? route.model() : c.model())
                .operation(c.operation())
                .tenant(c.tenant())
                .team(c.team())
                .trafficClass(c.trafficClass())
                .apiKeyId(keyId)
                .deployment(route.deployment() != null ? route.deployment() : c.deployment())
                .traceId(c.traceId())
                .organization(org)
                .region(route.target().scope().get("region"))
                .build();
    }
}
