package dev.sluice.core.exchange;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.config.ProviderKind;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Usage;
import dev.sluice.core.fallback.FallbackPlan;
import dev.sluice.core.price.Price;
import dev.sluice.core.price.ServiceTier;
import dev.sluice.core.provider.ProviderBinding;
import dev.sluice.core.provider.RequestFacts;

/** One logical call after recognition: who it is for, what it asks, and its attempts so far. */
final class PreparedCall {

    final HttpTransport transport;
    /** The provider of the route the call is on: its own, or a fallback route's once it moved. */
    ProviderBinding provider;

    final RequestFacts facts;
    /** Who the call is for on its route: a fallback route's provider, key and model once it moved. */
    CallContext context;

    final Demand demand;
    final String route;
    final long startedNanos;
    /** The caller's own deadline (nanoTime), or 0 when it set none. */
    final long deadlineNanos;
    /** The provider's kind, or null for one Sluice has no adapter kind for. */
    final ProviderKind kind;
    /**
     * The model's price, or null when none is known (the call costs nothing against budgets).
     * Looked up at admission when the governor has budgets (the worst case is reserved against
     * them); otherwise only at settlement, so the price table is not on the first call's way out.
     */
    private Price price;
    /** Whether {@link #price} was looked up (it may be null either way). */
    private boolean priceLookedUp;

    private final Pricing pricing;

    int attempts;
    /** When the current attempt was sent (monotonic nanos): its answer time is counted from it. */
    long attemptSentNanos;

    /** Where the call may move; null when its class has no fallback routes for its provider. */
    FallbackPlan fallbacks;
    /** The index in {@link #fallbacks} of the next route to consider. */
    int nextRoute;
    /** The name of the route the call is on (its provider's name until it moves). */
    String routeName;
    /** The body as the application made it, kept only when a route may rewrite it. */
    byte[] body;

    /** Whether a route to move to remains (the class's plan, the model's rules, a transport that can). */
    int nextUsableRoute() {
        return fallbacks == null || !transport.canReroute() ? -1 : fallbacks.next(nextRoute, context.model());
    }

    /**
     * The deadline of an admission: the caller's, and once the call moved, also the class's wait
     * counted from the call's start, so its routes share one deadline.
     */
    long admissionDeadline() {
        if (fallbacks == null || nextRoute == 0) {
            return deadlineNanos;
        }
        long classDeadline = startedNanos + Math.min(fallbacks.classMaxWaitNanos(), Long.MAX_VALUE / 4);
        return deadlineNanos == 0 || classDeadline - deadlineNanos < 0 ? classDeadline : deadlineNanos;
    }

    PreparedCall(
            HttpTransport transport,
            ProviderBinding provider,
            RequestFacts facts,
            CallContext context,
            Demand demand,
            String route,
            long startedNanos,
            long deadlineNanos,
            ProviderKind kind,
            Pricing pricing,
            Price price,
            boolean priceLookedUp) {
        this.transport = transport;
        this.provider = provider;
        this.facts = facts;
        this.context = context;
        this.demand = demand;
        this.route = route;
        this.startedNanos = startedNanos;
        this.deadlineNanos = deadlineNanos;
        this.kind = kind;
        this.pricing = pricing;
        this.price = price;
        this.priceLookedUp = priceLookedUp;
    }

    /** The usage with its cost at this call's price, in the tier it asked for unless the answer says another. */
    Usage priced(Usage usage) {
        return Pricing.priced(usage, price(), kind, ServiceTier.of(facts.serviceTier()));
    }

    /** This call's price, looked up now if admission did not need it. */
    Price price() {
        if (!priceLookedUp) {
            price = pricing.priceOf(provider.name(), kind, facts.model());
            priceLookedUp = true;
        }
        return price;
    }

    boolean pastDeadline(long nowNanos) {
        return deadlineNanos != 0 && nowNanos - deadlineNanos >= 0;
    }
}
