package dev.sluice.instrumentation.reactornetty.helper;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.Collections;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClientResponse;
import reactor.util.context.Context;

/**
 * The {@link HttpClientResponse} of an answer Sluice built without the network (a local
 * rejection, or a provider refusal annotated with Sluice's decision). A dynamic proxy over the
 * interface rather than a class implementing it, so methods later Reactor Netty versions add to
 * the interface never leave it abstract.
 */
final class LocalResponse implements InvocationHandler {

    private final HttpResponseStatus status;
    private final HttpHeaders headers;
    private final HttpMethod method;
    private final String url;
    private final HttpHeaders requestHeaders;

    private LocalResponse(int status, HttpHeaders headers, String method, String url, HttpHeaders requestHeaders) {
        this.status = HttpResponseStatus.valueOf(status);
        this.headers = headers;
        this.method = HttpMethod.valueOf(method);
        this.url = url;
        this.requestHeaders = requestHeaders;
    }

    static HttpClientResponse of(int status, HttpHeaders headers, String method, String url, HttpHeaders request) {
        return (HttpClientResponse) Proxy.newProxyInstance(
                LocalResponse.class.getClassLoader(),
                new Class<?>[] {HttpClientResponse.class},
                new LocalResponse(status, headers, method, url, request));
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) {
        switch (m.getName()) {
            case "status":
                return status;
            case "responseHeaders":
                return headers;
            case "requestHeaders":
                return requestHeaders;
            case "method":
                return method;
            case "uri":
            case "resourceUrl":
                return url;
            case "fullPath":
            case "path":
                String path = URI.create(url).getRawPath();
                return path == null ? "" : path.startsWith("/") ? path.substring(1) : path;
            case "cookies":
                return Collections.emptyMap();
            case "currentContext":
            case "currentContextView":
                return Context.empty();
            case "redirectedFrom":
                return new String[0];
            case "requestId":
                return "sluice-local";
            case "isKeepAlive":
            case "isWebsocket":
            case "isFollowRedirect":
                return Boolean.FALSE;
            case "version":
                return HttpVersion.HTTP_1_1;
            case "trailerHeaders":
                return Mono.empty();
            default:
                if (m.getDeclaringClass() == Object.class) {
                    return Answer.objectMethod(proxy, m, args, "SluiceLocalResponse{" + status + " " + url + "}");
                }
                throw new UnsupportedOperationException(m.getName() + " on a response Sluice answered locally");
        }
    }
}
