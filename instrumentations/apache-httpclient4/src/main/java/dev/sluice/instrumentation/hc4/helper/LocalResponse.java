package dev.sluice.instrumentation.hc4.helper;

import org.apache.http.HttpVersion;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.message.BasicHttpResponse;

/** An answer built by Sluice that never touched the network (a local rejection): nothing to close. */
final class LocalResponse extends BasicHttpResponse implements CloseableHttpResponse {

    LocalResponse(int status, String reason) {
        super(HttpVersion.HTTP_1_1, status, reason);
    }

    @Override
    public void close() {}
}
