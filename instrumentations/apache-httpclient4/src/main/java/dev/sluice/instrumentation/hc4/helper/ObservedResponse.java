package dev.sluice.instrumentation.hc4.helper;

import java.io.IOException;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.message.BasicHttpResponse;

/**
 * A governed 2xx response as the application gets it: the attempt's status and headers around an
 * {@link ObservedEntity}. A response of Sluice's own, so that closing it settles the body: an
 * application that closes the response without reading its entity (try-with-resources around
 * the call) gives the permit back at once, not when the entity is collected. The close then does
 * what HttpClient's own does: the attempt's connection is released without reading the rest.
 */
final class ObservedResponse extends BasicHttpResponse implements CloseableHttpResponse {

    private final CloseableHttpResponse attempt;

    ObservedResponse(CloseableHttpResponse attempt, ObservedEntity entity) {
        super(attempt.getStatusLine());
        this.attempt = attempt;
        setHeaders(attempt.getAllHeaders());
        setEntity(entity);
    }

    @Override
    public void close() throws IOException {
        try {
            if (getEntity() instanceof ObservedEntity) {
                ((ObservedEntity) getEntity()).closed();
            }
        } finally {
            attempt.close();
        }
    }
}
