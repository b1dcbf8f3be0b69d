package dev.sluice.simulator.server;

import com.github.tomakehurst.wiremock.extension.ResponseTransformerV2;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.HttpHeaders;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.Response;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import dev.sluice.simulator.protocol.ProviderRequest;
import dev.sluice.simulator.protocol.Reply;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The WireMock extension that answers every request: it turns WireMock's request into a {@link
 * ProviderRequest}, lets the admin endpoint or the {@link CallHandler} decide, and turns the
 * {@link Reply} into a WireMock response (a paced body, or a connection-reset fault).
 */
final class ProviderEndpoint implements ResponseTransformerV2 {
    static final String NAME = "sluice-simulator";

    private volatile CallHandler calls;
    private volatile AdminEndpoint admin;

    void bind(CallHandler calls, AdminEndpoint admin) {
        this.calls = calls;
        this.admin = admin;
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public boolean applyGlobally() {
        return true;
    }

    @Override
    public Response transform(Response response, ServeEvent serveEvent) {
        ProviderRequest request = toProviderRequest(serveEvent.getRequest());
        Reply reply = request.path().startsWith(AdminEndpoint.PREFIX) ? admin.handle(request) : calls.handle(request);
        return toResponse(reply);
    }

    static ProviderRequest toProviderRequest(Request request) {
        String url = request.getUrl();
        int q = url.indexOf('?');
        String path = q < 0 ? url : url.substring(0, q);
        Map<String, String> query = new HashMap<>();
        if (q >= 0) {
            for (String pair : url.substring(q + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                query.putIfAbsent(name, value);
            }
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (HttpHeader header : request.getHeaders().all()) {
            headers.put(header.key(), header.values());
        }
        return new ProviderRequest(request.getMethod().getName(), path, query, headers, request.getBody());
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static Response toResponse(Reply reply) {
        if (reply.isConnectionReset()) {
            return Response.response().fault(Fault.CONNECTION_RESET_BY_PEER).build();
        }
        List<HttpHeader> headers = new ArrayList<>();
        reply.headers().forEach((name, value) -> headers.add(new HttpHeader(name, value)));
        return Response.response()
                .status(reply.status())
                .headers(new HttpHeaders(headers))
                .body(new PacedBody(reply.frames(), reply.isTruncated()))
                .build();
    }
}
