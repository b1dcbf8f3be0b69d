package dev.sluice.core.provider;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Finds the provider a URL belongs to: configured URL prefixes first, then configured hosts, then
 * the public hosts the adapters know. Cheap enough to run on every HTTP exchange of the host JVM
 * (no allocation for URLs that are not LLM calls beyond their host and path substrings). Immutable.
 */
public final class ProviderRegistry {

    private final List<ProviderBinding> configured;
    private final List<ProviderBinding> known;

    public ProviderRegistry(List<ProviderBinding> configured, List<ProviderAdapter> knownAdapters) {
        this.configured = List.copyOf(configured);
        List<ProviderBinding> k = new ArrayList<>();
        for (ProviderAdapter a : knownAdapters) {
            k.add(ProviderBinding.known(a));
        }
        this.known = List.copyOf(k);
    }

    /** The provider of this absolute URL, or null when it is not an LLM endpoint Sluice knows. */
    public ProviderBinding match(String url) {
        if (url == null || url.indexOf("://") < 0) {
            return null;
        }
        String path = Urls.rawPath(url);
        for (ProviderBinding b : configured) {
            if (b.matchesUrl(url) && b.adapter().governsPath(path)) {
                return b;
            }
        }
        String host = Urls.host(url).toLowerCase(Locale.ROOT);
        for (ProviderBinding b : configured) {
            if (b.matchesHost(host, path)) {
                return b;
            }
        }
        for (ProviderBinding b : known) {
            if (b.matchesHost(host, path)) {
                return b;
            }
        }
        return null;
    }

    /**
     * Whether a connection to this host and port reaches a provider: a host config names, the
     * authority of a configured URL prefix, or an adapter's public host; a negative {@code port}
     * asks about any port. Path-blind: it serves to spot calls that bypass Sluice at the
     * connection, where no path is known.
     */
    public boolean recognisesEndpoint(String host, int port) {
        if (host == null) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        for (ProviderBinding b : configured) {
            if (b.matchesEndpoint(h, port)) {
                return true;
            }
        }
        for (ProviderBinding b : known) {
            if (b.adapter().recognisesHost(h)) {
                return true;
            }
        }
        return false;
    }

    public List<ProviderBinding> configured() {
        return configured;
    }
}
