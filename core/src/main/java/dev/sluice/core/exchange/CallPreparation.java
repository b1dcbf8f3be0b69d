package dev.sluice.core.exchange;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.config.Dimension;
import dev.sluice.config.ProviderKind;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.fallback.FallbackPlan;
import dev.sluice.core.identity.Identity;
import dev.sluice.core.price.Price;
import dev.sluice.core.price.ServiceTier;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.Organizations;
import dev.sluice.core.provider.ProviderBinding;
import dev.sluice.core.provider.ProviderRequest;
import dev.sluice.core.provider.RequestFacts;

/**
 * The first three steps of a call, before anything waits: recognise (which provider, from its
 * URL), identify (tenant, team, traffic class, key id), estimate (the demand charged at
 * admission, as each bucket's owner counts it). Nothing here blocks or holds a lock.
 */
final class CallPreparation {

    private static final Dimension[] DIMENSIONS = Dimension.values(); // values() copies its array each time

    private final ExchangeGovernance engine;

    /**
     * The route name last made, given again while calls come with the same provider, model and
     * operation strings (the model is the same string call after call when the body reader keeps
     * it): the estimator looks the route up twice a call, and a name made anew is hashed anew.
     */
    private volatile RouteName lastRoute;

    CallPreparation(ExchangeGovernance engine) {
        this.engine = engine;
    }

    /** Recognises and identifies a call and estimates its demand; null when no provider matches. */
    PreparedCall prepare(HttpTransport t) {
        String url = t.url();
        ProviderBinding provider = engine.registry().match(url);
        if (provider == null) {
            return null;
        }
        long now = engine.governor().clock().nanoTime();
        Headers headers = TransportHeaders.ofRequest(t);
        RequestFacts facts;
        Identity who;
        FallbackPlan fallbacks = null;
        byte[] keptBody = null;
        try {
            byte[] body = t.requestBody();
            int length = t.requestBodyLength();
            ProviderRequest request = ProviderRequest.of(t.method(), url, headers, body, length);
            facts = provider.adapter().readRequest(request, engine.estimator());
            who = engine.identity().resolve(headers, facts.apiKeyId());
            if (body != null) {
                fallbacks = engine.fallbacks().plan(provider.name(), who.trafficClass());
                if (fallbacks != null) {
                    keptBody = java.util.Arrays.copyOf(body, length); // a fallback route may rewrite it
                }
            }
        } finally {
            t.requestBodyRead(); // nothing read from the body is kept: a lent array goes back
        }
        CallContext context = CallContext.builder(provider.name())
                .providerKind(provider.adapter().kind())
                .model(facts.model())
                .operation(facts.operation())
                .tenant(who.tenant())
                .team(who.team())
                .trafficClass(who.trafficClass())
                .apiKeyId(facts.apiKeyId())
                .deployment(facts.deployment())
                .traceId(headers.first("traceparent"))
                .organization(organizationNamed(provider, facts))
                .region(facts.providerScope().get("region"))
                .build();
        String route = routeName(provider.name(), facts.model(), facts.operation());
        long outputAllowance = engine.estimator().outputEstimate(route, facts.maxOutputTokens());
        Demand.Builder demand =
                Demand.builder().inputTokens(facts.estimatedInputTokens()).outputTokens(outputAllowance);
        ProviderKind kind = provider.kind();
        boolean priceNow = engine.governor().hasBudgets();
        Price price = priceNow ? engine.pricing().priceOf(provider.name(), kind, facts.model()) : null;
        if (price != null) {
            // the worst case a budget must hold: the output allowance is max_tokens when the call sets it
            demand.spendMicros(price.worstCaseMicros(
                    facts.estimatedInputTokens(),
                    Math.max(outputAllowance, facts.maxOutputTokens()),
                    ServiceTier.of(facts.serviceTier())));
        }
        for (Dimension d : DIMENSIONS) {
            long charge = facts.providerCharge(d);
            if (charge >= 0) {
                demand.providerCharge(d, charge);
            }
            if (provider.adapter().truesUp(d)) {
                demand.providerTruesUp(d);
            }
        }
        long timeout = t.callerTimeoutNanos();
        engine.counters(provider.name()).calls.increment();
        PreparedCall call = new PreparedCall(
                t,
                provider,
                facts,
                context,
                demand.build(),
                route,
                now,
                timeout > 0 ? now + timeout : 0,
                kind,
                engine.pricing(),
                price,
                priceNow);
        if (fallbacks != null) {
            call.fallbacks = fallbacks;
            call.routeName = provider.name();
            call.body = keptBody;
        }
        return call;
    }

    /**
     * The organization the request (OpenAI's {@code OpenAI-Organization} and {@code OpenAI-Project})
     * or the provider's config ({@code providers[].scope}) names; null when only answers can tell.
     */
    private static String organizationNamed(ProviderBinding provider, RequestFacts facts) {
        java.util.Map<String, String> named = facts.providerScope();
        String org = named.get("organization");
        if (org == null) {
            named = provider.scope();
            org = named.get("organization");
        }
        return Organizations.withProject(org, named.get("project"));
    }

    /** {@code provider/model/operation}, as the estimator keys what it learns of a route's outputs. */
    private String routeName(String providerName, String model, String operation) {
        RouteName last = lastRoute;
        if (last != null && last.provider == providerName && last.model == model && last.operation == operation) {
            return last.name;
        }
        String name = providerName + '/' + model + '/' + operation;
        lastRoute = new RouteName(providerName, model, operation, name);
        return name;
    }

    /** A route's name and the strings it was made of, compared by identity. */
    private static final class RouteName {
        final String provider;
        final String model;
        final String operation;
        final String name;

        RouteName(String provider, String model, String operation, String name) {
            this.provider = provider;
            this.model = model;
            this.operation = operation;
            this.name = name;
        }
    }
}
