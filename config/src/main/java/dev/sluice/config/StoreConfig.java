package dev.sluice.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Where bucket state lives: in this JVM ({@code local}, the default), or in Redis so a fleet
 * of JVMs shares one provider quota. Also what to do when Redis is unreachable: each JVM falls
 * back to capacity / {@link #instances()} of every shared limit, so the fleet stays under the
 * provider's limit instead of multiplying it.
 */
public final class StoreConfig {
    /** The URL of the in-process store. */
    public static final String LOCAL = "local";
    /** The port used when a Redis URL names none. */
    public static final int DEFAULT_REDIS_PORT = 6379;

    private static final StoreConfig DEFAULTS = builder().build();

    private final String url;
    private final int instances;
    private final Duration timeout;
    private final double leaseChunk;
    private final RedisAddress address;

    private StoreConfig(Builder b) {
        this.url = b.url;
        this.instances = b.instances;
        this.timeout = b.timeout;
        this.leaseChunk = b.leaseChunk;
        this.address = url == null ? null : RedisAddress.parse(url);
    }

    /** The defaults: the local store, 100 ms timeout, leases of 5% of a bucket. */
    public static StoreConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        ConfigSchema.STORE.copy(this, b);
        return b;
    }

    /** {@code local}, or a {@code redis://} / {@code rediss://} URL (may contain a password: do not log it; {@link #toString()} masks it). */
    public String url() {
        return url;
    }

    public boolean isLocal() {
        return LOCAL.equals(url);
    }

    public boolean isRedis() {
        return address != null && address.error == null;
    }

    /** True for {@code rediss://}: TLS to Redis. */
    public boolean tls() {
        return isRedis() && address.tls;
    }

    /** The Redis host, or null for the local store. */
    public String host() {
        return isRedis() ? address.host : null;
    }

    /** The Redis port ({@value #DEFAULT_REDIS_PORT} when the URL names none), or 0 for the local store. */
    public int port() {
        return isRedis() ? address.port : 0;
    }

    /** The Redis database number (0 when the URL names none). */
    public int database() {
        return isRedis() ? address.database : 0;
    }

    /** Redis {@code user:password} from the URL, or null. */
    public String userInfo() {
        return isRedis() ? address.userInfo : null;
    }

    /** Fleet size for the fallback share capacity/N when the store is unreachable; 0 = learn it from heartbeats. */
    public int instances() {
        return instances;
    }

    /** How long one store call may take before the governor treats the store as unreachable. */
    public Duration timeout() {
        return timeout;
    }

    /** Fraction of a shared bucket's capacity one JVM may lease to admit locally at high rates; 0 = no leasing. */
    public double leaseChunk() {
        return leaseChunk;
    }

    void validate(String path, Issues issues) {
        ConfigSchema.STORE.validate(this, path, issues);
    }

    /** The URL names the local store or a Redis server Sluice can use; a missing URL is reported by the schema. */
    void checkUrl(String urlPath, Issues issues) {
        if (url != null && !isLocal() && address.error != null) {
            issues.add(
                    urlPath,
                    url,
                    "\"" + masked(url) + "\" is not a store URL: " + address.error
                            + "; write local, redis://host:port[/db] or rediss://host:port[/db]");
        }
    }

    private static String masked(String url) {
        return url == null ? null : url.replaceFirst("(://[^:@/]*:)[^@/]*@", "$1****@");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoreConfig && ConfigSchema.STORE.sameValues(this, (StoreConfig) o);
    }

    @Override
    public int hashCode() {
        return ConfigSchema.STORE.hashValues(this);
    }

    @Override
    public String toString() {
        return "StoreConfig{url=" + masked(url) + ", instances=" + instances + ", timeout="
                + (timeout == null ? null : Durations.format(timeout)) + ", leaseChunk=" + Issues.number(leaseChunk)
                + "}";
    }

    /** Builds a {@link StoreConfig}; starts from the defaults. */
    public static final class Builder {
        // Defaults, ranges and docs: ConfigSchema.STORE.
        String url;
        int instances;
        Duration timeout;
        double leaseChunk;

        private Builder() {
            ConfigSchema.STORE.applyDefaults(this);
        }

        public Builder url(String url) {
            this.url = Objects.requireNonNull(url, "url");
            return this;
        }

        public Builder instances(int instances) {
            this.instances = instances;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        public Builder leaseChunk(double leaseChunk) {
            this.leaseChunk = leaseChunk;
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public StoreConfig build() {
            StoreConfig s = new StoreConfig(this);
            Issues issues = new Issues();
            s.validate("", issues);
            issues.throwIfAny("store config");
            return s;
        }

        StoreConfig buildUnchecked() {
            return new StoreConfig(this);
        }
    }

    /** The parts of a Redis URL; parsed by hand because java.net.URI rejects host names with '_' (compose service names). */
    private static final class RedisAddress {
        boolean tls;
        String host;
        int port = DEFAULT_REDIS_PORT;
        int database;
        String userInfo;
        String error;

        static RedisAddress parse(String url) {
            RedisAddress a = new RedisAddress();
            String rest;
            if (url.startsWith("redis://")) {
                rest = url.substring("redis://".length());
            } else if (url.startsWith("rediss://")) {
                a.tls = true;
                rest = url.substring("rediss://".length());
            } else {
                a.error = "unknown scheme";
                return a;
            }
            if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
                a.error = "query parameters are not supported";
                return a;
            }
            int slash = rest.indexOf('/');
            String authority = slash < 0 ? rest : rest.substring(0, slash);
            String db = slash < 0 ? "" : rest.substring(slash + 1);
            int at = authority.lastIndexOf('@');
            if (at >= 0) {
                a.userInfo = authority.substring(0, at);
                authority = authority.substring(at + 1);
            }
            String portText = null;
            if (authority.startsWith("[")) {
                int close = authority.indexOf(']');
                if (close < 0) {
                    a.error = "unclosed [ in IPv6 address";
                    return a;
                }
                a.host = authority.substring(1, close);
                String after = authority.substring(close + 1);
                if (after.startsWith(":")) {
                    portText = after.substring(1);
                } else if (!after.isEmpty()) {
                    a.error = "unexpected text after the host";
                    return a;
                }
            } else {
                int colon = authority.lastIndexOf(':');
                a.host = colon < 0 ? authority : authority.substring(0, colon);
                portText = colon < 0 ? null : authority.substring(colon + 1);
            }
            if (a.host.isEmpty() || !a.host.matches("[A-Za-z0-9_.:-]+")) {
                a.error = "no valid host";
                return a;
            }
            if (portText != null) {
                if (!portText.matches("\\d{1,5}")
                        || Integer.parseInt(portText) < 1
                        || Integer.parseInt(portText) > 65535) {
                    a.error = "the port must be a number from 1 to 65535";
                    return a;
                }
                a.port = Integer.parseInt(portText);
            }
            if (!db.isEmpty()) {
                if (!db.matches("\\d{1,5}")) {
                    a.error = "the database must be a number";
                    return a;
                }
                a.database = Integer.parseInt(db);
            }
            return a;
        }
    }
}
