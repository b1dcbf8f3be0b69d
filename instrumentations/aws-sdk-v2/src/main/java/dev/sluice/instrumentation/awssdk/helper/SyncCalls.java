package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import java.io.IOException;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;

/**
 * {@code SdkHttpClient.prepareRequest(HttpExecuteRequest)} of a governed request: instead of the
 * client's own prepared request, the SDK gets one whose {@code call()} runs the logical call
 * through the governor ({@link GovernedRequest}); everything else passes untouched.
 */
final class SyncCalls {

    private SyncCalls() {}

    static CallOutcome enter(Object self, Object[] args) {
        if (!(self instanceof SdkHttpClient)
                || args == null
                || args.length != 1
                || !(args[0] instanceof HttpExecuteRequest)) {
            return null;
        }
        HttpExecuteRequest request = (HttpExecuteRequest) args[0];
        String url = request.httpRequest().getUri().toString();
        if (!Bridge.governance().governs(url)) {
            return null;
        }
        SyncTransport transport;
        try {
            transport = SyncTransport.of((SdkHttpClient) self, request, url);
        } catch (IOException | RuntimeException unreadable) {
            Bridge.hookFault("aws-sdk:request-body", unreadable);
            return null; // the client's own request reads it again, and fails or not as it would have
        }
        return transport == null ? null : CallOutcome.response(new GovernedRequest(transport));
    }

    /** What the SDK calls and aborts for a governed request: one logical call, every attempt Sluice's. */
    static final class GovernedRequest implements ExecutableHttpRequest {
        private final SyncTransport transport;

        GovernedRequest(SyncTransport transport) {
            this.transport = transport;
        }

        @Override
        public HttpExecuteResponse call() throws IOException {
            Governance governance = Bridge.governance();
            CallOutcome outcome;
            try {
                outcome = CallOutcome.checked(
                        governance.execute(transport), HttpExecuteResponse.class, transport.attemptsSent());
            } catch (Throwable fault) {
                Bridge.hookFault("aws-sdk:execute", fault);
                if (transport.attemptsSent() == 0) {
                    return transport.executeUngoverned(); // nothing left the JVM yet: send it once, ungoverned
                }
                transport.releaseUnclaimed();
                throw new IOException("Sluice failed after the request was sent; not sending it again", fault);
            }
            return SyncTransport.outcome(outcome);
        }

        @Override
        public void abort() {
            transport.abort();
        }
    }
}
