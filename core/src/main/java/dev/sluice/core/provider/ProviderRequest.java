package dev.sluice.core.provider;

/** The outgoing request as an adapter reads it: method, URL, headers and the serialized body. */
public final class ProviderRequest {

    private final String method;
    private final String url;
    private final Headers headers;
    private final byte[] body;
    private final int bodyLength;

    private ProviderRequest(String method, String url, Headers headers, byte[] body, int bodyLength) {
        this.method = method;
        this.url = url;
        this.headers = headers;
        this.body = body;
        this.bodyLength = bodyLength;
    }

    /**
     * @param url the absolute URL as the HTTP library holds it (its parts are read raw, see {@link Urls})
     * @param body the serialized request body, or null when there is none or it could not be read
     */
    public static ProviderRequest of(String method, String url, Headers headers, byte[] body) {
        return of(method, url, headers, body, body == null ? 0 : body.length);
    }

    /**
     * @param body the serialized request body in its first {@code bodyLength} bytes (the array may
     *     be longer: a transport's reused buffer), or null
     */
    public static ProviderRequest of(String method, String url, Headers headers, byte[] body, int bodyLength) {
        if (method == null || url == null || headers == null) {
            throw new IllegalArgumentException("method, url and headers are required");
        }
        if (body != null && (bodyLength < 0 || bodyLength > body.length)) {
            throw new IllegalArgumentException(
                    "bodyLength " + bodyLength + " outside the body's " + body.length + " bytes");
        }
        return new ProviderRequest(method, url, headers, body, body == null ? 0 : bodyLength);
    }

    public String method() {
        return method;
    }

    public String url() {
        return url;
    }

    /** The host, lower case, or an empty string. */
    public String host() {
        return Urls.host(url).toLowerCase(java.util.Locale.ROOT);
    }

    /** The raw path, or an empty string. */
    public String path() {
        return Urls.rawPath(url);
    }

    /** The raw query (not decoded), or null when the URL has none. */
    public String rawQuery() {
        return Urls.rawQuery(url);
    }

    public Headers headers() {
        return headers;
    }

    /**
     * The body bytes, or null: the first {@link #bodyLength()} of them, the array may be longer. Not
     * copied: adapters must not modify them, nor keep them past {@code readRequest}.
     */
    public byte[] body() {
        return body;
    }

    /** How many of {@link #body()}'s bytes are the body. */
    public int bodyLength() {
        return bodyLength;
    }
}
