package dev.sluice.instrumentation.jdkhttp.helper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * The response handed to the application for a governed exchange: an attempt's response with
 * the governor's headers set, a buffered error replayed through the application's handler, or a
 * local answer that never touched the network.
 */
final class SluiceHttpResponse implements HttpResponse<Object> {

    private final int status;
    private final HttpRequest request;
    private final HttpHeaders headers;
    private final Object body;
    private final HttpClient.Version version;
    private final Optional<SSLSession> sslSession;
    private final Optional<HttpResponse<Object>> previous;

    SluiceHttpResponse(
            int status,
            HttpRequest request,
            HttpHeaders headers,
            Object body,
            HttpClient.Version version,
            Optional<SSLSession> sslSession,
            Optional<HttpResponse<Object>> previous) {
        this.status = status;
        this.request = request;
        this.headers = headers;
        this.body = body;
        this.version = version;
        this.sslSession = sslSession;
        this.previous = previous;
    }

    @Override
    public int statusCode() {
        return status;
    }

    @Override
    public HttpRequest request() {
        return request;
    }

    @Override
    public Optional<HttpResponse<Object>> previousResponse() {
        return previous;
    }

    @Override
    public HttpHeaders headers() {
        return headers;
    }

    @Override
    public Object body() {
        return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
        return sslSession;
    }

    @Override
    public URI uri() {
        return request.uri();
    }

    @Override
    public HttpClient.Version version() {
        return version;
    }

    @Override
    public String toString() {
        return "(" + request.method() + " " + request.uri() + ") " + status;
    }
}
