package dev.sluice.core.fallback;

import dev.sluice.config.FallbackConfig;
import dev.sluice.config.ProviderConfig;
import dev.sluice.config.SluiceConfig;
import dev.sluice.config.TrafficClassConfig;
import dev.sluice.core.provider.ProviderBinding;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Every configured fallback plan, by the provider a call was made to and its traffic class, and
 * the counts of the moves made. A class with no plan for a provider never moves. Immutable but for
 * the counts; the look-up allocates nothing.
 */
public final class FallbackPlans {

    private static final FallbackPlans NONE = new FallbackPlans(Collections.emptyMap());

    private final Map<String, Map<String, FallbackPlan>> byProvider;
    private final FallbackCounts counts = new FallbackCounts();

    private FallbackPlans(Map<String, Map<String, FallbackPlan>> byProvider) {
        this.byProvider = byProvider;
    }

    /** No plans: no call ever moves. */
    public static FallbackPlans none() {
        return NONE;
    }

    /**
     * The plans of a validated config. A route whose credential variable is unset or empty is left
     * out, and {@code warn} is told why, naming the field: the call would otherwise go to the route
     * with the primary's key.
     *
     * @param providers the configured providers' bindings (the routes' targets among them)
     * @param environment the process's environment variables
     */
    public static FallbackPlans of(
            SluiceConfig config,
            List<ProviderBinding> providers,
            Map<String, String> environment,
            Consumer<String> warn) {
        if (config.fallbacks().isEmpty()) {
            return NONE;
        }
        Map<String, ProviderBinding> bindings = new HashMap<>();
        for (ProviderBinding b : providers) {
            bindings.put(b.name(), b);
        }
        Map<String, ProviderConfig> declared = new HashMap<>();
        for (ProviderConfig p : config.providers()) {
            declared.put(p.name(), p);
        }
        Map<String, Map<String, FallbackPlan>> byProvider = new HashMap<>();
        for (int i = 0; i < config.fallbacks().size(); i++) {
            FallbackConfig f = config.fallbacks().get(i);
            String fromBase = basePath(declared.get(f.from()));
            List<FallbackRoute> routes = new ArrayList<>();
            for (int r = 0; r < f.routes().size(); r++) {
                FallbackConfig.Route route = f.routes().get(r);
                String path = "fallbacks[" + i + "].routes[" + r + "]";
                String credential = null;
                if (route.apiKeyEnv() != null) {
                    credential = environment.get(route.apiKeyEnv());
                    if (credential == null || credential.trim().isEmpty()) {
                        warn.accept(path + ".apiKeyEnv: " + route.apiKeyEnv()
                                + " is not set in the environment; route " + route.name()
                                + " is left out (its calls would carry the primary's key)");
                        continue;
                    }
                    credential = credential.trim();
                }
                ProviderConfig to = declared.get(route.to());
                String base = route.baseUrl(to);
                String deployment = route.deployment();
                int azurePath = base.indexOf(AZURE_PATH, base.indexOf("//") + 2);
                if (azurePath >= 0) {
                    // an Azure address names its deployment: the route goes to it, on the call's own API path
                    if (deployment == null && base.startsWith(DEPLOYMENTS, azurePath)) {
                        String rest = base.substring(azurePath + DEPLOYMENTS.length());
                        int slash = rest.indexOf('/');
                        deployment = slash < 0 ? rest : rest.substring(0, slash);
                    }
                    base = base.substring(0, azurePath);
                }
                routes.add(new FallbackRoute(
                        route.name(),
                        bindings.get(route.to()),
                        base,
                        fromBase,
                        deployment == null || deployment.isEmpty() ? null : deployment,
                        route.model(),
                        credential));
            }
            if (routes.isEmpty()) {
                continue;
            }
            Map<String, FallbackPlan> byClass = byProvider.get(f.from());
            if (byClass == null) { // not computeIfAbsent with a lambda: this runs as the agent starts
                byClass = new HashMap<>();
                byProvider.put(f.from(), byClass);
            }
            for (String c : f.classes()) {
                long maxWait = Long.MAX_VALUE;
                for (TrafficClassConfig tc : config.trafficClasses()) {
                    if (tc.name().equals(c)) {
                        maxWait = tc.maxWait().toNanos();
                    }
                }
                byClass.put(c, new FallbackPlan(routes, f.afterPause().toNanos(), f.otherModels(), maxWait));
            }
        }
        return new FallbackPlans(byProvider);
    }

    private static final String AZURE_PATH = "/openai/";
    private static final String DEPLOYMENTS = "/openai/deployments/";

    /**
     * The path of the provider's first URL prefix: what its calls' paths start with before the
     * API's own (for Azure, what comes before {@code /openai/}, which is the API's).
     */
    private static String basePath(ProviderConfig p) {
        if (p == null || p.match().urls().isEmpty()) {
            return "";
        }
        String path = URI.create(p.match().urls().get(0)).getRawPath();
        if (path == null) {
            return "";
        }
        int azure = path.indexOf(AZURE_PATH);
        return azure >= 0 ? path.substring(0, azure) : path;
    }

    /** The plan for calls of this class to this provider; null when they never move. */
    public FallbackPlan plan(String provider, String trafficClass) {
        if (byProvider.isEmpty()) {
            return null;
        }
        Map<String, FallbackPlan> byClass = byProvider.get(provider);
        return byClass == null ? null : byClass.get(trafficClass);
    }

    /** The moves made and the answers served, by route. */
    public FallbackCounts counts() {
        return counts;
    }
}
