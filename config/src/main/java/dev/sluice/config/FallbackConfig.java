package dev.sluice.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where the calls of some traffic classes to one provider may go when that provider cannot take
 * them: an ordered list of routes of the same wire protocol (another Azure deployment or region,
 * another endpoint speaking the same API, another model where {@link #otherModels()} allows it).
 * A call moves on when its route cannot admit it at once, when the provider paused the route for
 * longer than {@link #afterPause()}, or when the provider answers overloaded (503, 529); it keeps
 * one retry budget, one attempt count and one deadline across its routes.
 */
public final class FallbackConfig {
    static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    static final Pattern ROUTE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_./-]*");

    /** How long a provider's pause is waited out on a route before a call moves on, when not set. */
    public static final Duration DEFAULT_AFTER_PAUSE = Duration.ofSeconds(1);

    private final String from;
    private final List<String> classes;
    private final Duration afterPause;
    private final boolean otherModels;
    private final List<Route> routes;

    private FallbackConfig(Builder b) {
        this.from = b.from;
        this.classes = List.copyOf(b.classes);
        this.afterPause = b.afterPause;
        this.otherModels = b.otherModels;
        this.routes = List.copyOf(b.routes);
    }

    /** A builder for the routes of calls to provider {@code from}. */
    public static Builder builder(String from) {
        return new Builder().from(from);
    }

    static Builder builder() {
        return new Builder();
    }

    /** The provider (a declared one's name) whose calls these routes take over. */
    public String from() {
        return from;
    }

    /** The traffic classes whose calls may move; calls of any other class stay on their route. */
    public List<String> classes() {
        return classes;
    }

    /** A provider pause (a wait it named in a 429) longer than this sends a call to the next route. */
    public Duration afterPause() {
        return afterPause;
    }

    /** Whether a route may change the call's model; when false a route naming another model is skipped. */
    public boolean otherModels() {
        return otherModels;
    }

    /** The routes, tried in order after the call's own. */
    public List<Route> routes() {
        return routes;
    }

    /**
     * The wire protocol a provider kind speaks, or null for kinds whose calls Sluice does not move:
     * OpenAI and OpenAI-compatible servers share one; Azure OpenAI (its paths and {@code api-key})
     * and Anthropic have their own.
     */
    public static String wireProtocol(ProviderKind kind) {
        switch (kind) {
            case OPENAI:
            case OPENAI_COMPATIBLE:
                return "openai";
            case AZURE_OPENAI:
                return "azure-openai";
            case ANTHROPIC:
                return "anthropic";
            default:
                return null;
        }
    }

    void validate(String path, Issues issues) {
        if (from == null) {
            issues.missing(Issues.join(path, "from"));
        }
        if (classes.isEmpty()) {
            issues.add(Issues.join(path, "classes"), null, "required: the traffic classes whose calls may move");
        }
        if (afterPause.isNegative()) {
            issues.check(false, Issues.join(path, "afterPause"), afterPause, ">= 0s");
        }
        if (routes.isEmpty()) {
            issues.add(Issues.join(path, "routes"), null, "required: at least one route");
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < routes.size(); i++) {
            String routePath = Issues.index(path, "routes", i);
            Route r = routes.get(i);
            r.validate(routePath, issues);
            String name = r.name();
            if (name != null) {
                int first = names.indexOf(name);
                if (first >= 0) {
                    issues.add(
                            Issues.join(routePath, "name"),
                            name,
                            Issues.render(name) + " is already the name of " + Issues.index(path, "routes", first)
                                    + "; give one of them a name");
                }
                names.add(name);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FallbackConfig)) {
            return false;
        }
        FallbackConfig c = (FallbackConfig) o;
        return Objects.equals(from, c.from)
                && classes.equals(c.classes)
                && afterPause.equals(c.afterPause)
                && otherModels == c.otherModels
                && routes.equals(c.routes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(from, classes, afterPause, otherModels, routes);
    }

    @Override
    public String toString() {
        return "FallbackConfig{from=" + from + ", classes=" + classes + ", afterPause=" + Issues.render(afterPause)
                + ", otherModels=" + otherModels + ", routes=" + routes + "}";
    }

    /**
     * One route a call may move to: the declared provider whose limits it counts against
     * ({@link #to()}), where the calls go ({@link #url()}, else the provider's one address), and
     * what Sluice rewrites on the way: the Azure deployment, the body's {@code model}, the
     * credential (read from the environment variable {@link #apiKeyEnv()} names, never written in
     * the config).
     */
    public static final class Route {
        private final String name;
        private final String to;
        private final String url;
        private final String deployment;
        private final String model;
        private final String apiKeyEnv;

        private Route(RouteBuilder b) {
            this.name = b.name;
            this.to = b.to;
            this.url = b.url == null ? null : stripSlash(b.url.trim());
            this.deployment = b.deployment;
            this.model = b.model;
            this.apiKeyEnv = b.apiKeyEnv;
        }

        private static String stripSlash(String url) {
            return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        }

        public static RouteBuilder builder(String to) {
            return new RouteBuilder().to(to);
        }

        static RouteBuilder builder() {
            return new RouteBuilder();
        }

        /** The route's name in headers, answers and JMX: as set, else {@code to}, then {@code /deployment} when set. */
        public String name() {
            if (name != null) {
                return name;
            }
            if (to == null) {
                return null;
            }
            return deployment == null ? to : to + "/" + deployment;
        }

        /** The declared provider the route's calls belong to (its limits, its scope). */
        public String to() {
            return to;
        }

        /** Where the calls go (scheme, host, port and any base path), as set; null to take the provider's address. */
        public String url() {
            return url;
        }

        /** The Azure OpenAI deployment the calls go to; null to keep the call's own. */
        public String deployment() {
            return deployment;
        }

        /** The model written into the request body; null to keep the call's own. */
        public String model() {
            return model;
        }

        /** The environment variable holding the route's credential; null to keep the call's own. */
        public String apiKeyEnv() {
            return apiKeyEnv;
        }

        /**
         * The base URL of the route's calls: {@link #url()}, else the provider's first URL prefix,
         * else {@code https://} its one exact host; null when none of these names a single address.
         */
        public String baseUrl(ProviderConfig target) {
            if (url != null) {
                return url;
            }
            if (target == null) {
                return null;
            }
            MatchConfig m = target.match();
            if (!m.urls().isEmpty()) {
                return stripSlash(m.urls().get(0));
            }
            if (m.hosts().size() == 1 && !m.hosts().get(0).contains("*")) {
                return "https://" + m.hosts().get(0);
            }
            return null;
        }

        void validate(String path, Issues issues) {
            if (to == null) {
                issues.missing(Issues.join(path, "to"));
            }
            if (name != null && !ROUTE_NAME.matcher(name).matches()) {
                issues.add(
                        Issues.join(path, "name"),
                        name,
                        Issues.render(name) + " is not a valid name, use letters, digits and _ . - / (starting with a"
                                + " letter or digit)");
            }
            if (url != null) {
                String problem = urlProblem(url);
                if (problem != null) {
                    issues.add(Issues.join(path, "url"), url, problem);
                }
            }
            if (apiKeyEnv != null && !ENV_NAME.matcher(apiKeyEnv).matches()) {
                issues.add(
                        Issues.join(path, "apiKeyEnv"),
                        apiKeyEnv,
                        Issues.render(apiKeyEnv) + " is not an environment variable's name (letters, digits and _);"
                                + " name the variable holding the key, never the key itself");
            }
            blank(path, "deployment", deployment, issues);
            blank(path, "model", model, issues);
        }

        private static void blank(String path, String key, String value, Issues issues) {
            if (value != null && value.trim().isEmpty()) {
                issues.add(Issues.join(path, key), value, "must not be empty");
            }
        }

        private static String urlProblem(String url) {
            try {
                URI u = new URI(url);
                String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
                if (!scheme.equals("http") && !scheme.equals("https") || u.getHost() == null) {
                    return Issues.render(url) + " is not an absolute http(s) URL";
                }
                if (u.getRawQuery() != null || u.getRawFragment() != null) {
                    return Issues.render(url) + " must not have a query or fragment (the call's own are kept)";
                }
                return null;
            } catch (URISyntaxException e) {
                return Issues.render(url) + " is not a URL: " + e.getReason();
            }
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Route)) {
                return false;
            }
            Route r = (Route) o;
            return Objects.equals(name, r.name)
                    && Objects.equals(to, r.to)
                    && Objects.equals(url, r.url)
                    && Objects.equals(deployment, r.deployment)
                    && Objects.equals(model, r.model)
                    && Objects.equals(apiKeyEnv, r.apiKeyEnv);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, to, url, deployment, model, apiKeyEnv);
        }

        @Override
        public String toString() {
            return "Route{" + name() + ", to=" + to + (url == null ? "" : ", url=" + url)
                    + (deployment == null ? "" : ", deployment=" + deployment)
                    + (model == null ? "" : ", model=" + model)
                    + (apiKeyEnv == null ? "" : ", apiKeyEnv=" + apiKeyEnv) + "}";
        }
    }

    /** Builds a {@link Route}. */
    public static final class RouteBuilder {
        String name;
        String to;
        String url;
        String deployment;
        String model;
        String apiKeyEnv;

        private RouteBuilder() {}

        public RouteBuilder name(String v) {
            this.name = Objects.requireNonNull(v, "name");
            return this;
        }

        RouteBuilder to(String v) {
            this.to = Objects.requireNonNull(v, "to");
            return this;
        }

        public RouteBuilder url(String v) {
            this.url = Objects.requireNonNull(v, "url");
            return this;
        }

        public RouteBuilder deployment(String v) {
            this.deployment = Objects.requireNonNull(v, "deployment");
            return this;
        }

        public RouteBuilder model(String v) {
            this.model = Objects.requireNonNull(v, "model");
            return this;
        }

        public RouteBuilder apiKeyEnv(String v) {
            this.apiKeyEnv = Objects.requireNonNull(v, "apiKeyEnv");
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public Route build() {
            Route r = new Route(this);
            Issues issues = new Issues();
            r.validate("", issues);
            issues.throwIfAny("fallback route " + r.name());
            return r;
        }

        Route buildUnchecked() {
            return new Route(this);
        }
    }

    /** Builds a {@link FallbackConfig}. */
    public static final class Builder {
        String from;
        List<String> classes = new ArrayList<>();
        Duration afterPause = DEFAULT_AFTER_PAUSE;
        boolean otherModels;
        List<Route> routes = new ArrayList<>();

        private Builder() {}

        Builder from(String v) {
            this.from = Objects.requireNonNull(v, "from");
            return this;
        }

        public Builder classes(List<String> v) {
            this.classes = new ArrayList<>(Objects.requireNonNull(v, "classes"));
            return this;
        }

        public Builder classes(String... v) {
            return classes(List.of(v));
        }

        public Builder afterPause(Duration v) {
            this.afterPause = Objects.requireNonNull(v, "afterPause");
            return this;
        }

        public Builder otherModels(boolean v) {
            this.otherModels = v;
            return this;
        }

        public Builder routes(List<Route> v) {
            this.routes = new ArrayList<>(Objects.requireNonNull(v, "routes"));
            return this;
        }

        public Builder route(Route v) {
            this.routes.add(Objects.requireNonNull(v, "route"));
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public FallbackConfig build() {
            FallbackConfig c = new FallbackConfig(this);
            Issues issues = new Issues();
            c.validate("", issues);
            issues.throwIfAny("fallbacks from " + from);
            return c;
        }

        FallbackConfig buildUnchecked() {
            return new FallbackConfig(this);
        }
    }
}
