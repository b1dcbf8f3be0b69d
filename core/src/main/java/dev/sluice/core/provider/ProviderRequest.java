package dev.sluice.core.provider;

import java.net.URI;

/** The outgoing request as an adapter reads it: method, URL, headers and the serialized body. */
public final class ProviderRequest {

    private final String method;
    private final URI uri;
    private final Headers headers;
    private final byte[] body;

    private ProviderRequest(String method, URI uri, Headers headers, byte[] body) {
        this.method = method;
        this.uri = uri;
        this.headers = headers;
        this.body = body;
    }

    /**
     * @param body the serialized request body, or null when there is none or it could not be read
     */
    public static ProviderRequest of(String method, URI uri, Headers headers, byte[] body) {
        if (method == null || uri == null || headers == null) {
            throw new IllegalArgumentException("method, uri and headers are required");
        }
        return new ProviderRequest(method, uri, headers, body);
    }

    public String method() {
        return method;
    }

    public URI uri() {
        return uri;
    }

    /** The host, lower case, or an empty string. */
    public String host() {
        String host = uri.getHost();
        return host == null ? "" : host.toLowerCase(java.util.Locale.ROOT);
    }

    /** The raw path, or an empty string. */
    public String path() {
        String path = uri.getRawPath();
        return path == null ? "" : path;
    }

    public Headers headers() {
        return headers;
    }

    /** The body bytes, or null. Not copied: adapters must not modify them. */
    public byte[] body() {
        return body;
    }
}
