package dev.sluice.core.provider.wire;

import java.util.Locale;

/** Host names as adapters compare them: lower case, without port or trailing dot, whatever the HTTP client handed over. */
public final class HostNames {

    private HostNames() {}

    /** {@code API.OpenAI.com:443} and {@code api.openai.com.} both become {@code api.openai.com}; null becomes empty. */
    public static String bare(String host) {
        if (host == null) {
            return "";
        }
        String h = host.trim();
        int colon = h.lastIndexOf(':');
        if (colon > 0 && h.indexOf(']') < colon && h.indexOf(':') == colon) {
            h = h.substring(0, colon); // a port; IPv6 literals keep their colons
        }
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        return h.toLowerCase(Locale.ROOT);
    }
}
