package dev.sluice.core.provider;

import dev.sluice.config.MatchConfig;
import dev.sluice.config.ProviderKind;
import java.util.Map;
import java.util.Objects;

/**
 * A provider Sluice governs: its name (used in scopes, limits and JMX), the adapter that speaks
 * its protocol, where its requests go, and its own scope (organization, project, region...).
 * Immutable.
 */
public final class ProviderBinding {

    private final String name;
    private final ProviderAdapter adapter;
    /** The adapter's kind as the config names it, or null for a kind config has no name for. */
    private final ProviderKind kind;

    private final MatchConfig match;
    private final Map<String, String> scope;
    private final boolean learnFromHeaders;

    private ProviderBinding(
            String name,
            ProviderAdapter adapter,
            MatchConfig match,
            Map<String, String> scope,
            boolean learnFromHeaders) {
        this.name = Objects.requireNonNull(name, "name");
        this.adapter = Objects.requireNonNull(adapter, "adapter");
        this.kind = ProviderKind.fromConfigName(adapter.kind());
        this.match = match;
        this.scope = Map.copyOf(scope);
        this.learnFromHeaders = learnFromHeaders;
    }

    /**
     * A configured provider.
     *
     * @param match the hosts and URL prefixes config assigns to it; empty to rely on the adapter's
     *     known hosts
     */
    public static ProviderBinding configured(
            String name,
            ProviderAdapter adapter,
            MatchConfig match,
            Map<String, String> scope,
            boolean learnFromHeaders) {
        return new ProviderBinding(name, adapter, match, scope, learnFromHeaders);
    }

    /** A provider recognised by its public host with no config: named after its kind. */
    public static ProviderBinding known(ProviderAdapter adapter) {
        return new ProviderBinding(adapter.kind(), adapter, null, Map.of(), true);
    }

    public String name() {
        return name;
    }

    public ProviderAdapter adapter() {
        return adapter;
    }

    /** The provider's kind (what prices and usage rules depend on); null for a kind config has no name for. */
    public ProviderKind kind() {
        return kind;
    }

    public Map<String, String> scope() {
        return scope;
    }

    public boolean learnFromHeaders() {
        return learnFromHeaders;
    }

    boolean matchesUrl(String url) {
        return match != null && match.matchesUrl(url);
    }

    /**
     * A configured host, or the host and port of a configured URL prefix (the scheme's port when
     * none is written); a negative {@code port} matches any port.
     */
    boolean matchesEndpoint(String host, int port) {
        if (match == null || match.isEmpty()) {
            return adapter.recognisesHost(host);
        }
        if (match.matchesHost(host)) {
            return true;
        }
        for (String url : match.urls()) {
            java.net.URI uri;
            try {
                uri = java.net.URI.create(url);
            } catch (IllegalArgumentException malformed) {
                continue;
            }
            int urlPort = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
            if (host.equalsIgnoreCase(uri.getHost()) && (port < 0 || port == urlPort)) {
                return true;
            }
        }
        return false;
    }

    boolean matchesHost(String host, String path) {
        if (match == null || match.isEmpty()) {
            return adapter.recognises(host, path);
        }
        return match.matchesHost(host) && adapter.governsPath(path);
    }

    @Override
    public String toString() {
        return name + "(" + adapter.kind() + ")";
    }
}
