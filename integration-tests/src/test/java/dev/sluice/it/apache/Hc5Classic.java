package dev.sluice.it.apache;

import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * The classic HttpClient 5 client as an application builds it: its default retry strategy
 * (429 and 503 retried once after {@code Retry-After}) and pool (5 connections per route). Only
 * API present from 5.2 to 5.6, so the same class runs against every version.
 */
final class Hc5Classic implements ApacheHttpApp.Client {

    private final String url;
    private final CloseableHttpClient client;

    Hc5Classic(String url) {
        this.url = url;
        this.client = HttpClients.custom()
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(Timeout.ofSeconds(20))
                        .build())
                .build();
    }

    private HttpPost post(String callId, String body, String force) {
        HttpPost post = new HttpPost(url);
        post.setHeader("Authorization", "Bearer sk-hc5-test");
        post.setHeader("x-sim-call-id", callId);
        if (force != null) {
            post.setHeader("x-sim-force", force);
        }
        ApacheHttpApp.EXTRA_HEADERS.forEach(post::setHeader);
        post.setEntity(new StringEntity(body, ContentType.APPLICATION_JSON));
        return post;
    }

    @Override
    public String call(String callId, String body, boolean stream, int thread, String force) throws Exception {
        HttpPost post = post(callId, body, force);
        if (stream) {
            try (ClassicHttpResponse response = client.executeOpen(null, post, null)) {
                if (response.getCode() != 200) {
                    ApacheHttpApp.LAST_BODY.set(EntityUtils.toString(response.getEntity()));
                    return ApacheHttpApp.outcome(response.getCode(), decision(response));
                }
                return ApacheHttpApp.readStream(response.getEntity().getContent());
            }
        }
        if (thread % 2 == 0) {
            return client.execute(post, response -> {
                ApacheHttpApp.LAST_BODY.set(EntityUtils.toString(response.getEntity()));
                return ApacheHttpApp.outcome(response.getCode(), decision(response));
            });
        }
        try (ClassicHttpResponse response = client.executeOpen(null, post, null)) {
            String text = EntityUtils.toString(response.getEntity());
            ApacheHttpApp.LAST_BODY.set(text);
            if (response.getCode() == 200 && !text.contains("\"usage\"")) {
                return "body:without-usage";
            }
            return ApacheHttpApp.outcome(response.getCode(), decision(response));
        }
    }

    private static String decision(ClassicHttpResponse response) {
        Header h = response.getFirstHeader("x-sluice-decision");
        return h == null ? null : h.getValue();
    }

    @Override
    public void callAndDrop(String callId, String body) throws Exception {
        ClassicHttpResponse response = client.executeOpen(null, post(callId, body, null), null);
        if (response.getCode() != 200) {
            throw new IllegalStateException("status " + response.getCode());
        }
        // dropped: neither read nor closed
    }

    @Override
    public int connectionsPerRoute() {
        return 5;
    }
}
