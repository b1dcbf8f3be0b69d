package dev.sluice.instrumentation.hc4.helper;

import org.apache.http.client.methods.HttpEntityEnclosingRequestBase;

/** One of Sluice's attempts: any method, with or without a body. */
final class AttemptRequest extends HttpEntityEnclosingRequestBase {

    private final String method;

    AttemptRequest(String method) {
        this.method = method;
    }

    @Override
    public String getMethod() {
        return method;
    }
}
