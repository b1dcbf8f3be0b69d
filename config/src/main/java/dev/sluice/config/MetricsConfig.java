package dev.sluice.config;

/**
 * Whether and where the agent serves metrics: a Prometheus endpoint on {@link #port()} (0, the
 * default, serves none), and the OpenTelemetry GenAI instruments recorded into the application's
 * own global {@code MeterProvider} when {@link #openTelemetry()} is on.
 */
public final class MetricsConfig {

    private static final MetricsConfig DEFAULTS = builder().build();

    private final int port;
    private final String bind;
    private final String path;
    private final int maxTenants;
    private final boolean tokenDetail;
    private final boolean openTelemetry;

    private MetricsConfig(Builder b) {
        this.port = b.port;
        this.bind = b.bind;
        this.path = b.path;
        this.maxTenants = b.maxTenants;
        this.tokenDetail = b.tokenDetail;
        this.openTelemetry = b.openTelemetry;
    }

    /** The defaults: no endpoint, nothing sent to OpenTelemetry. */
    public static MetricsConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        ConfigSchema.METRICS.copy(this, b);
        return b;
    }

    /** The Prometheus endpoint's port; 0 serves no endpoint. */
    public int port() {
        return port;
    }

    /** The address the endpoint listens on: {@code 0.0.0.0} (every interface), or one address or host name. */
    public String bind() {
        return bind;
    }

    /** The endpoint's path, e.g. {@code /metrics}. */
    public String path() {
        return path;
    }

    /** Tenants that get a label of their own; the others are summed under {@code other}. */
    public int maxTenants() {
        return maxTenants;
    }

    /**
     * Whether token usage is split as the GenAI conventions' draft does: input by cache
     * ({@code gen_ai.token.cache}: read, creation, uncached) and output by reasoning
     * ({@code gen_ai.token.reasoning}).
     */
    public boolean tokenDetail() {
        return tokenDetail;
    }

    /** Whether the GenAI instruments are also recorded into the application's OpenTelemetry meters. */
    public boolean openTelemetry() {
        return openTelemetry;
    }

    /** Whether anything is measured: an endpoint, OpenTelemetry, or both. */
    public boolean enabled() {
        return port > 0 || openTelemetry;
    }

    void checkPath(String pathPath, Issues issues) {
        if (path != null && (!path.startsWith("/") || path.indexOf(' ') >= 0)) {
            issues.add(pathPath, path, "\"" + path + "\" is not a path: write one starting with /, e.g. /metrics");
        }
    }

    void checkBind(String bindPath, Issues issues) {
        if (bind != null && bind.trim().isEmpty()) {
            issues.add(bindPath, bind, "must name an address, e.g. 0.0.0.0 or 127.0.0.1");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MetricsConfig && ConfigSchema.METRICS.sameValues(this, (MetricsConfig) o);
    }

    @Override
    public int hashCode() {
        return ConfigSchema.METRICS.hashValues(this);
    }

    @Override
    public String toString() {
        return "MetricsConfig{port=" + port + ", bind=" + bind + ", path=" + path + ", maxTenants=" + maxTenants
                + ", tokenDetail=" + tokenDetail + ", openTelemetry=" + openTelemetry + "}";
    }

    /** Builds a {@link MetricsConfig}; starts from the defaults. */
    public static final class Builder {
        // Defaults, ranges and docs: ConfigSchema.METRICS.
        int port;
        String bind;
        String path;
        int maxTenants;
        boolean tokenDetail;
        boolean openTelemetry;

        private Builder() {
            ConfigSchema.METRICS.applyDefaults(this);
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder bind(String bind) {
            this.bind = bind;
            return this;
        }

        public Builder path(String path) {
            this.path = path;
            return this;
        }

        public Builder maxTenants(int maxTenants) {
            this.maxTenants = maxTenants;
            return this;
        }

        public Builder tokenDetail(boolean tokenDetail) {
            this.tokenDetail = tokenDetail;
            return this;
        }

        public Builder openTelemetry(boolean openTelemetry) {
            this.openTelemetry = openTelemetry;
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public MetricsConfig build() {
            Issues issues = new Issues();
            ConfigSchema.METRICS.validate(buildUnchecked(), "metrics", issues);
            issues.throwIfAny("metrics config");
            return buildUnchecked();
        }

        MetricsConfig buildUnchecked() {
            return new MetricsConfig(this);
        }
    }
}
