package dev.sluice.it.apache;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.util.Timeout;
import org.springframework.http.MediaType;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Spring's {@code RestClient} over the classic HttpClient 5, as Spring Boot builds it when
 * httpclient5 is on the class path (Spring AI's sync calls): {@code HttpComponentsClientHttpRequest}
 * sends with {@code executeOpen(null, request, context)} and a body entity that only writes
 * ({@code getContent()} throws), HttpClient's default retry strategy and pool.
 */
final class Hc5Spring implements ApacheHttpApp.Client {

    private final String url;
    private final RestClient rest;

    Hc5Spring(String url) {
        this.url = url;
        CloseableHttpClient client = HttpClients.custom()
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(Timeout.ofSeconds(20))
                        .build())
                .build();
        this.rest = RestClient.builder()
                .requestFactory(new HttpComponentsClientHttpRequestFactory(client))
                .defaultHeader("Authorization", "Bearer sk-hc5-spring-test")
                .build();
    }

    @Override
    public String call(String callId, String body, boolean stream, int thread, String force) throws Exception {
        long governedBefore = ApacheHttpApp.governedOnThisThread();
        try {
            return send(callId, body, stream, force);
        } finally {
            if (ApacheHttpApp.governedOnThisThread() > governedBefore) {
                ApacheHttpApp.GOVERNED_ON_CALLER_THREAD.incrementAndGet();
            }
        }
    }

    private String send(String callId, String body, boolean stream, String force) {
        return rest.post()
                .uri(url)
                .contentType(MediaType.APPLICATION_JSON)
                .header("x-sim-call-id", callId)
                .headers(h -> {
                    if (force != null) {
                        h.set("x-sim-force", force);
                    }
                    ApacheHttpApp.EXTRA_HEADERS.forEach(h::set);
                })
                .body(body)
                .exchange((request, response) -> {
                    int status = response.getStatusCode().value();
                    String decision = response.getHeaders().getFirst("x-sluice-decision");
                    try (InputStream in = response.getBody()) {
                        if (stream && status == 200) {
                            return ApacheHttpApp.readStream(in);
                        }
                        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                        ApacheHttpApp.LAST_BODY.set(text);
                        if (status == 200 && !text.contains("\"usage\"")) {
                            return "body:without-usage";
                        }
                        return ApacheHttpApp.outcome(status, decision);
                    }
                });
    }

    @Override
    public void callAndDrop(String callId, String body) {
        // RestClient closes every response it hands a handler: an application cannot drop one
        throw new UnsupportedOperationException("RestClient always closes its responses");
    }

    @Override
    public int connectionsPerRoute() {
        return 5;
    }
}
