package dev.sluice.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules between {@code fallbacks[]} and the rest of the config: providers and classes named
 * exist, a route never crosses wire protocols, a deployment only where Azure has deployments, a
 * route has an address, and a class's calls to one provider have one list of routes.
 */
final class FallbackChecks {

    private FallbackChecks() {}

    static void check(
            List<FallbackConfig> fallbacks, List<ProviderConfig> providers, Set<String> classNames, Issues issues) {
        Map<String, ProviderConfig> byName = new HashMap<>();
        for (ProviderConfig p : providers) {
            if (p.name() != null) {
                byName.putIfAbsent(p.name(), p);
            }
        }
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < fallbacks.size(); i++) {
            FallbackConfig f = fallbacks.get(i);
            String path = Issues.index("", "fallbacks", i);
            ProviderConfig from = provider(f.from(), Issues.join(path, "from"), byName, issues);
            String protocol = from == null ? null : FallbackConfig.wireProtocol(from.kind());
            if (from != null && protocol == null) {
                issues.add(
                        Issues.join(path, "from"),
                        f.from(),
                        Issues.render(f.from()) + " is a " + from.kind().configName()
                                + " provider; calls move only between openai, openai-compatible, azure-openai"
                                + " and anthropic providers");
            }
            for (int c = 0; c < f.classes().size(); c++) {
                String name = f.classes().get(c);
                String classPath = Issues.index(path, "classes", c);
                if (!classNames.contains(name)) {
                    String near = DidYouMean.nearest(name, classNames);
                    issues.add(
                            classPath,
                            name,
                            Issues.render(name) + " names no traffic class, "
                                    + (near != null
                                            ? "did you mean " + near + "?"
                                            : "declared: " + String.join(", ", classNames)));
                } else if (f.from() != null) {
                    String first = seen.putIfAbsent(f.from() + '\n' + name, classPath);
                    if (first != null) {
                        issues.add(
                                classPath,
                                name,
                                "calls of class " + name + " to " + f.from() + " already have their routes at " + first
                                        + "; list all of them there");
                    }
                }
            }
            for (int r = 0; r < f.routes().size(); r++) {
                route(f.routes().get(r), Issues.index(path, "routes", r), from, protocol, byName, issues);
            }
        }
    }

    private static void route(
            FallbackConfig.Route route,
            String path,
            ProviderConfig from,
            String protocol,
            Map<String, ProviderConfig> byName,
            Issues issues) {
        ProviderConfig to = provider(route.to(), Issues.join(path, "to"), byName, issues);
        if (to == null) {
            return;
        }
        String toProtocol = FallbackConfig.wireProtocol(to.kind());
        if (protocol != null && !protocol.equals(toProtocol)) {
            issues.add(
                    Issues.join(path, "to"),
                    route.to(),
                    Issues.render(route.to()) + " speaks " + to.kind().configName() + " but " + from.name()
                            + " speaks " + from.kind().configName()
                            + "; a call never moves across wire protocols");
        }
        if (route.deployment() != null && to.kind() != ProviderKind.AZURE_OPENAI) {
            issues.add(
                    Issues.join(path, "deployment"),
                    route.deployment(),
                    "only azure-openai providers have deployments; " + route.to() + " is "
                            + to.kind().configName());
        }
        if (route.baseUrl(to) == null) {
            issues.add(
                    Issues.join(path, "url"),
                    null,
                    "required here: " + route.to() + " is recognised by "
                            + "hosts " + to.match().hosts()
                            + ", which name no single address; give the route the URL its calls go to");
        }
        if (from != null
                && from.name().equals(to.name())
                && route.url() == null
                && route.deployment() == null
                && route.model() == null) {
            issues.add(
                    Issues.join(path, "to"),
                    route.to(),
                    "a route to the call's own provider must change its url, deployment or model");
        }
    }

    private static ProviderConfig provider(
            String name, String path, Map<String, ProviderConfig> byName, Issues issues) {
        if (name == null) {
            return null;
        }
        ProviderConfig p = byName.get(name);
        if (p == null) {
            String near = DidYouMean.nearest(name, byName.keySet());
            issues.add(
                    path,
                    name,
                    Issues.render(name) + " names no declared provider"
                            + (near != null
                                    ? ", did you mean " + near + "?"
                                    : byName.isEmpty()
                                            ? " (no providers are declared)"
                                            : " (declared: " + String.join(", ", byName.keySet()) + ")"));
        }
        return p;
    }
}
