package dev.sluice.core.exchange;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.core.provider.Headers;

/** A call's headers as its transport gives them: as pairs when it keeps them so, else as a map. */
final class TransportHeaders {

    private TransportHeaders() {}

    static Headers ofRequest(HttpTransport transport) {
        String[] pairs = transport.requestHeaderPairs();
        return pairs != null ? Headers.ofPairs(pairs) : Headers.of(transport.requestHeaders());
    }

    static Headers ofResponse(HttpTransport transport, Object response) {
        String[] pairs = transport.responseHeaderPairs(response);
        return pairs != null ? Headers.ofPairs(pairs) : Headers.of(transport.responseHeaders(response));
    }
}
