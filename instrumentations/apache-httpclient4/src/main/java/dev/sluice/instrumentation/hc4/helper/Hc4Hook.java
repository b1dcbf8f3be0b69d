package dev.sluice.instrumentation.hc4.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hook;
import java.io.IOException;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.client.methods.AbstractExecutionAwareRequest;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.protocol.HttpContext;

/**
 * Entry of the hooked {@code doExecute} of one copy of HttpClient 4.5. Returns {@code null} (the
 * original method runs) for everything Sluice does not govern and for a fault before an attempt
 * was sent.
 */
public final class Hc4Hook implements Hook {

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        if (args == null || args.length != 3 || !(args[1] instanceof HttpRequest)) {
            return null;
        }
        CloseableHttpClient client = (CloseableHttpClient) self;
        HttpHost target = (HttpHost) args[0];
        HttpRequest request = (HttpRequest) args[1];
        HttpContext context = (HttpContext) args[2];
        if (request instanceof AbstractExecutionAwareRequest && ((AbstractExecutionAwareRequest) request).isAborted()) {
            return null; // HttpClient raises its own "request aborted"
        }
        String url = Hc4Transport.urlOf(target, request);
        Governance governance = Bridge.governance();
        if (url == null || !governance.governs(url)) {
            return null;
        }
        Hc4Transport transport;
        try {
            transport = Hc4Transport.of(client, target, request, context, url);
        } catch (IOException unreadable) {
            return CallOutcome.failure(unreadable); // sending it would have failed the same way
        }
        if (transport == null) {
            return null; // a body that cannot be read ahead: not governed
        }
        try {
            return CallOutcome.checked(
                    governance.execute(transport), CloseableHttpResponse.class, transport.attemptsSent());
        } catch (Throwable fault) {
            Bridge.hookFault("apache-httpclient4:execute", fault);
            if (transport.attemptsSent() == 0) {
                return transport.executeUngoverned(); // nothing left the JVM yet: send it once, ungoverned
            }
            transport.releaseUnclaimed();
            return CallOutcome.failure(
                    new IOException("Sluice failed after the request was sent; not sending it again", fault));
        } finally {
            transport.finish();
        }
    }
}
