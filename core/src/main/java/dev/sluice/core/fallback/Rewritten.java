package dev.sluice.core.fallback;

import java.util.Collections;
import java.util.Map;

/**
 * A request as a route sends it: its URL, the request headers replaced (a null value removes the
 * header; names lower case) and its body when the route changed it (null: the call's own).
 */
public final class Rewritten {
    private final String url;
    private final Map<String, String> headers;
    private final byte[] body;

    Rewritten(String url, Map<String, String> headers, byte[] body) {
        this.url = url;
        this.headers = Collections.unmodifiableMap(headers);
        this.body = body;
    }

    public String url() {
        return url;
    }

    /** Headers to set (lower-case names), a null value for a header to remove. */
    public Map<String, String> headers() {
        return headers;
    }

    /** The new body, or null when the route sends the call's own. */
    public byte[] body() {
        return body;
    }
}
