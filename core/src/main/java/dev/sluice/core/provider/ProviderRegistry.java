package dev.sluice.core.provider;

import dev.sluice.core.LastSeen;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Finds the provider a URL belongs to: configured URL prefixes first, then configured hosts, then
 * the public hosts the adapters know. Runs on every HTTP exchange of the host JVM, twice for a
 * governed call (the hook asks whether Sluice governs it, then the call's preparation which
 * provider): a URL asked about recently is answered from a small table of the last ones seen.
 * Immutable but for that table, whose answers depend on nothing else than the URL.
 */
public final class ProviderRegistry {

    private final List<ProviderBinding> configured;
    private final List<ProviderBinding> known;

    /**
     * The last URLs matched and their provider (or none). A full match lowers the host and asks
     * every adapter; on a core just back from waiting for an answer that cost a few microseconds a
     * call (docs/benchmarks.md). URLs with a query or user info are not kept: Gemini's query may
     * carry an API key, user info a password.
     */
    private final LastSeen<ProviderBinding> seen = new LastSeen<>(64, 512);

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
        if (url == null) {
            return null;
        }
        LastSeen.Entry<ProviderBinding> last = seen.find(url);
        if (last != null) {
            return last.value;
        }
        ProviderBinding provider = find(url);
        if (url.indexOf('?') < 0 && url.indexOf('@') < 0) {
            seen.keep(url, provider);
        }
        return provider;
    }

    private ProviderBinding find(String url) {
        if (url.indexOf("://") < 0) {
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
