package dev.sluice.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An LLM provider endpoint the governor paces calls to: its API dialect ({@link ProviderKind}),
 * how its calls are recognised ({@link MatchConfig}), its own scope (organization, project,
 * region, deployment...), the limits it enforces, which Sluice mirrors so that it paces
 * under them rather than meeting 429s, and the options its adapter needs that the protocol cannot
 * tell (for kinds that take any, see {@link ProviderKind#adapterOptions()}).
 */
public final class ProviderConfig {
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]*");

    private final String name;
    private final ProviderKind kind;
    private final MatchConfig declaredMatch;
    private final Map<String, String> scope;
    private final boolean learnFromHeaders;
    private final List<LimitConfig> limits;
    /** As written; {@link #options()} gives them canonical. */
    private final Map<String, String> options;
    /** The ramp declared under the provider, or null. */
    private final RampConfig ramp;

    private ProviderConfig(Builder b) {
        this.ramp = b.ramp;
        this.name = b.name;
        this.kind = b.kind;
        this.declaredMatch = b.match;
        this.scope = Collections.unmodifiableMap(new LinkedHashMap<>(b.scope));
        this.learnFromHeaders = b.learnFromHeaders;
        this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
        List<LimitConfig> own = new ArrayList<>(b.limits.size());
        for (LimitConfig l : b.limits) {
            // A provider's limits count only its own calls and are always shared in a fleet.
            own.add(l.toBuilder()
                    .provider(name)
                    .mirrorsProvider(true)
                    .providerBurst(b.kind == null ? null : b.kind.documentedBurst())
                    .scopeValue(null)
                    .buildUnchecked());
        }
        this.limits = Collections.unmodifiableList(own);
    }

    /** A builder for a provider with this name (lower case letters, digits, {@code _ . -}) and kind. */
    public static Builder builder(String name, ProviderKind kind) {
        return new Builder().name(name).kind(kind);
    }

    static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.kind = kind;
        b.match = declaredMatch;
        b.scope = new LinkedHashMap<>(scope);
        b.learnFromHeaders = learnFromHeaders;
        b.limits = new ArrayList<>(limits);
        b.options = new LinkedHashMap<>(options);
        b.ramp = ramp;
        return b;
    }

    /** Unique among providers; appears in limit ids, JMX names and rejections. */
    public String name() {
        return name;
    }

    public ProviderKind kind() {
        return kind;
    }

    /** How calls are recognised: the declared match, or the kind's public hosts when none was declared. */
    public MatchConfig match() {
        if (declaredMatch != null) {
            return declaredMatch;
        }
        return kind == null || kind.requiresMatch()
                ? MatchConfig.none()
                : MatchConfig.unchecked(kind.defaultHosts(), Collections.emptyList());
    }

    /** True when the config declared a match rather than relying on the kind's public hosts. */
    public boolean hasDeclaredMatch() {
        return declaredMatch != null;
    }

    /** The provider's own scope: free keys such as organization, project, region, deployment, workspace. */
    public Map<String, String> scope() {
        return scope;
    }

    /** Whether limits are learned (and corrected) from the provider's rate-limit headers. */
    public boolean learnFromHeaders() {
        return learnFromHeaders;
    }

    /** The provider's own limits; each has {@link LimitConfig#provider()} = this name and {@link LimitConfig#mirrorsProvider()}. */
    public List<LimitConfig> limits() {
        return limits;
    }

    /**
     * The ramp that paces the growth of this provider's calls: the one declared, or when none is
     * declared the kind's built-in one ({@link RampConfig#builtIn}); null when there is none or it
     * was turned off ({@code enabled: false}).
     */
    public RampConfig ramp() {
        if (ramp != null) {
            return ramp.enabled() ? ramp : null;
        }
        return kind == null ? null : RampConfig.builtIn(kind, requestsPerSecond());
    }

    /** The ramp declared under the provider (which may be {@code enabled: false}), or null. */
    public RampConfig declaredRamp() {
        return ramp;
    }

    /**
     * Calls a second the provider's own requests limit allows (the tightest token bucket or window
     * over every model); 0 when it declares none. What a ramp's schedule takes a share of.
     */
    public double requestsPerSecond() {
        double least = 0;
        for (LimitConfig l : limits) {
            java.time.Duration w = l.window();
            if (l.dimension() != Dimension.REQUESTS || !l.models().isEmpty() || w == null || w.isZero()) {
                continue;
            }
            double rate = l.capacity() * 1e9 / w.toNanos();
            least = least == 0 ? rate : Math.min(least, rate);
        }
        return least;
    }

    /**
     * What the adapter is told beyond the protocol, e.g. {@code requestsWindow: 1d} for Groq: the
     * option names of {@link ProviderKind#adapterOptions()}, with durations in their shortest
     * exact form ({@code 90s}, {@code 1d}) and booleans as {@code true}/{@code false}. Empty
     * unless configured.
     */
    public Map<String, String> options() {
        Map<String, String> canonical = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            AdapterOption option = AdapterOption.fromConfigName(e.getKey());
            String value = e.getValue();
            if (option != null) {
                try {
                    value = option.canonical(value);
                } catch (IllegalArgumentException invalid) {
                    // reported by validate(); an unchecked build keeps the value as written
                }
            }
            canonical.put(e.getKey(), value);
        }
        return Collections.unmodifiableMap(canonical);
    }

    void validate(String path, Issues issues) {
        String namePath = Issues.join(path, "name");
        if (name == null) {
            issues.missing(namePath);
        } else if (!NAME.matcher(name).matches()) {
            issues.add(
                    namePath,
                    name,
                    Issues.render(name)
                            + " is not a valid name, use lower case letters, digits and _ . - (starting with a letter or digit)");
        }
        if (kind == null) {
            issues.missing(Issues.join(path, "kind"));
        }
        if (declaredMatch != null) {
            declaredMatch.validate(Issues.join(path, "match"), issues);
        } else if (kind != null && kind.requiresMatch()) {
            issues.add(
                    Issues.join(path, "match"),
                    null,
                    "required but missing for kind " + kind + " (it has no public host to recognise it by)");
        }
        for (Map.Entry<String, String> e : scope.entrySet()) {
            if (e.getKey() == null || e.getKey().isEmpty() || e.getValue() == null) {
                issues.add(Issues.join(path, "scope"), e.getKey(), "scope keys and values must be non-empty strings");
            }
        }
        for (int i = 0; i < limits.size(); i++) {
            limits.get(i).validate(Issues.index(path, "limits", i), issues);
        }
        if (ramp != null) {
            ramp.validate(Issues.join(path, "ramp"), issues, requestsPerSecond() > 0);
        }
        validateOptions(Issues.join(path, "options"), issues);
    }

    private void validateOptions(String path, Issues issues) {
        if (options.isEmpty() || kind == null) {
            return;
        }
        List<String> allowed = kind.adapterOptions();
        if (allowed.isEmpty()) {
            issues.add(
                    path,
                    null,
                    "kind " + kind + " takes no options (its adapter knows its provider); only "
                            + ProviderKind.OPENAI_COMPATIBLE + " does");
            return;
        }
        for (Map.Entry<String, String> e : options.entrySet()) {
            String optionPath = Issues.join(path, e.getKey());
            AdapterOption option = AdapterOption.fromConfigName(e.getKey());
            if (option == null || !allowed.contains(e.getKey())) {
                String near = DidYouMean.nearest(e.getKey(), allowed);
                issues.add(
                        optionPath,
                        null,
                        near != null
                                ? "unknown option, did you mean " + near + "?"
                                : "unknown option; options of kind " + kind + " are " + String.join(", ", allowed));
                continue;
            }
            try {
                option.canonical(e.getValue());
            } catch (IllegalArgumentException invalid) {
                issues.add(optionPath, e.getValue(), invalid.getMessage());
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ProviderConfig)) {
            return false;
        }
        ProviderConfig p = (ProviderConfig) o;
        return Objects.equals(name, p.name)
                && kind == p.kind
                && match().equals(p.match())
                && scope.equals(p.scope)
                && learnFromHeaders == p.learnFromHeaders
                && limits.equals(p.limits)
                && Objects.equals(ramp, p.ramp)
                && options().equals(p.options());
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, kind, scope, limits, options());
    }

    @Override
    public String toString() {
        return "ProviderConfig{" + name + ", kind=" + kind + ", match=" + match().hosts() + match().urls()
                + (scope.isEmpty() ? "" : ", scope=" + scope) + ", learnFromHeaders=" + learnFromHeaders
                + ", limits=" + limits + (options.isEmpty() ? "" : ", options=" + options())
                + (ramp == null ? "" : ", ramp=" + ramp) + "}";
    }

    /** Builds a {@link ProviderConfig}: name and kind required; learns from headers by default. */
    public static final class Builder {
        String name;
        ProviderKind kind;
        MatchConfig match;
        Map<String, String> scope = new LinkedHashMap<>();
        boolean learnFromHeaders = true;
        List<LimitConfig> limits = new ArrayList<>();
        Map<String, String> options = new LinkedHashMap<>();
        RampConfig ramp;

        private Builder() {}

        /** How fast this provider's admitted rate may grow; see {@link ProviderConfig#ramp()}. */
        public Builder ramp(RampConfig ramp) {
            this.ramp = Objects.requireNonNull(ramp, "ramp");
            return this;
        }

        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        public Builder kind(ProviderKind kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /** Replaces the kind's public hosts; required for kinds without any. */
        public Builder match(MatchConfig match) {
            this.match = Objects.requireNonNull(match, "match");
            return this;
        }

        public Builder scope(Map<String, String> scope) {
            this.scope = new LinkedHashMap<>(Objects.requireNonNull(scope, "scope"));
            return this;
        }

        public Builder scope(String key, String value) {
            this.scope.put(key, value);
            return this;
        }

        public Builder learnFromHeaders(boolean learnFromHeaders) {
            this.learnFromHeaders = learnFromHeaders;
            return this;
        }

        public Builder limits(List<LimitConfig> limits) {
            this.limits = new ArrayList<>(Objects.requireNonNull(limits, "limits"));
            return this;
        }

        /** Adds one of the provider's own limits; its provider is set to this provider. */
        public Builder limit(LimitConfig limit) {
            this.limits.add(Objects.requireNonNull(limit, "limit"));
            return this;
        }

        /** Replaces the adapter options; see {@link ProviderConfig#options()}. */
        public Builder options(Map<String, String> options) {
            this.options = new LinkedHashMap<>(Objects.requireNonNull(options, "options"));
            return this;
        }

        /** Adds one adapter option, e.g. {@code option("requestsWindow", "1d")}. */
        public Builder option(String name, String value) {
            this.options.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public ProviderConfig build() {
            ProviderConfig p = new ProviderConfig(this);
            Issues issues = new Issues();
            p.validate("", issues);
            issues.throwIfAny("provider " + name);
            return p;
        }

        ProviderConfig buildUnchecked() {
            return new ProviderConfig(this);
        }
    }
}
