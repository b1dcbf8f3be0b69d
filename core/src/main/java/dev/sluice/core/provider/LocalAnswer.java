package dev.sluice.core.provider;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An HTTP answer Sluice builds itself (a local rejection), in the provider's own shape. Immutable. */
public final class LocalAnswer {

    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;

    private LocalAnswer(int status, Map<String, List<String>> headers, byte[] body) {
        this.status = status;
        this.headers = headers;
        this.body = body;
    }

    public static LocalAnswer of(int status, Map<String, List<String>> headers, byte[] body) {
        return new LocalAnswer(status, Collections.unmodifiableMap(new LinkedHashMap<>(headers)), body.clone());
    }

    public int status() {
        return status;
    }

    public Map<String, List<String>> headers() {
        return headers;
    }

    /** A copy of the body bytes. */
    public byte[] body() {
        return body.clone();
    }
}
