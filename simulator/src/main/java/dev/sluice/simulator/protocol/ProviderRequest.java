package dev.sluice.simulator.protocol;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** An HTTP request as a protocol sees it: method, path, query, headers (any case) and body. */
public final class ProviderRequest {
    private final String method;
    private final String path;
    private final Map<String, String> query;
    private final Map<String, List<String>> headers;
    private final byte[] body;

    public ProviderRequest(
            String method, String path, Map<String, String> query, Map<String, List<String>> headers, byte[] body) {
        this.method = method.toUpperCase(Locale.ROOT);
        this.path = path;
        this.query = Map.copyOf(query);
        TreeMap<String, List<String>> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        h.putAll(headers);
        this.headers = h;
        this.body = body == null ? new byte[0] : body;
    }

    public String method() {
        return method;
    }

    public String path() {
        return path;
    }

    /** A query parameter, or null. */
    public String query(String name) {
        return query.get(name);
    }

    /** The first value of a header (case-insensitive), or null. */
    public String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    public byte[] body() {
        return body;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The token of an {@code Authorization: Bearer ...} header, or null. */
    public String bearerToken() {
        String auth = header("Authorization");
        if (auth == null) {
            return null;
        }
        return auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).trim() : auth.trim();
    }
}
