package dev.sluice.core.provider;

import java.util.List;
import java.util.Locale;
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
    private final List<String> hosts;
    private final List<String> urlPrefixes;
    private final Map<String, String> scope;
    private final boolean learnFromHeaders;

    private ProviderBinding(String name, ProviderAdapter adapter, List<String> hosts, List<String> urlPrefixes,
            Map<String, String> scope, boolean learnFromHeaders) {
        this.name = Objects.requireNonNull(name, "name");
        this.adapter = Objects.requireNonNull(adapter, "adapter");
        this.hosts = lower(hosts);
        this.urlPrefixes = List.copyOf(urlPrefixes);
        this.scope = Map.copyOf(scope);
        this.learnFromHeaders = learnFromHeaders;
    }

    private static List<String> lower(List<String> hosts) {
        return hosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).collect(java.util.stream.Collectors.toList());
    }

    /**
     * A configured provider.
     *
     * @param hosts exact host names or {@code *.suffix} wildcards; empty to rely on the adapter's
     *     known hosts
     * @param urlPrefixes absolute URL prefixes (self-hosted, gateways)
     */
    public static ProviderBinding configured(String name, ProviderAdapter adapter, List<String> hosts,
            List<String> urlPrefixes, Map<String, String> scope, boolean learnFromHeaders) {
        return new ProviderBinding(name, adapter, hosts, urlPrefixes, scope, learnFromHeaders);
    }

    /** A provider recognised by its public host with no config: named after its kind. */
    public static ProviderBinding known(ProviderAdapter adapter) {
        return new ProviderBinding(adapter.kind(), adapter, List.of(), List.of(), Map.of(), true);
    }

    public String name() {
        return name;
    }

    public ProviderAdapter adapter() {
        return adapter;
    }

    public Map<String, String> scope() {
        return scope;
    }

    public boolean learnFromHeaders() {
        return learnFromHeaders;
    }

    boolean matchesUrl(String url) {
        for (String p : urlPrefixes) {
            if (url.regionMatches(true, 0, p, 0, p.length())) {
                return true;
            }
        }
        return false;
    }

    boolean matchesHost(String host, String path) {
        if (hosts.isEmpty()) {
            return urlPrefixes.isEmpty() && adapter.recognises(host, path);
        }
        for (String h : hosts) {
            if (h.startsWith("*.") ? host.endsWith(h.substring(1)) : host.equals(h)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return name + "(" + adapter.kind() + ")";
    }
}
