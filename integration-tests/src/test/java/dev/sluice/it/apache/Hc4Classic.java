package dev.sluice.it.apache;

import org.apache.http.Header;
import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpPost;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.StringEntity;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.DefaultServiceUnavailableRetryStrategy;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.util.EntityUtils;

/**
 * An HttpClient 4.5 client as enterprise code builds it: the default I/O retry handler, 503s
 * retried once after a second ({@code DefaultServiceUnavailableRetryStrategy}), 5 connections per
 * route.
 */
final class Hc4Classic implements ApacheHttpApp.Client {

    private static final int PER_ROUTE = 5;

    private final String url;
    private final CloseableHttpClient client;

    Hc4Classic(String url) {
        this.url = url;
        this.client = HttpClients.custom()
                .setServiceUnavailableRetryStrategy(new DefaultServiceUnavailableRetryStrategy(1, 1000))
                .setMaxConnPerRoute(PER_ROUTE)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(20_000)
                        .build())
                .build();
    }

    private HttpPost post(String callId, String body, String force) {
        HttpPost post = new HttpPost(url);
        post.setHeader("Authorization", "Bearer sk-hc4-test");
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
        if (!stream && thread % 2 == 0) {
            return client.execute(post, response -> {
                ApacheHttpApp.LAST_BODY.set(EntityUtils.toString(response.getEntity()));
                return ApacheHttpApp.outcome(response.getStatusLine().getStatusCode(), decision(response));
            });
        }
        try (CloseableHttpResponse response = client.execute(post)) {
            int status = response.getStatusLine().getStatusCode();
            if (stream && status == 200) {
                return ApacheHttpApp.readStream(response.getEntity().getContent());
            }
            String text = EntityUtils.toString(response.getEntity());
            ApacheHttpApp.LAST_BODY.set(text);
            if (status == 200 && !text.contains("\"usage\"")) {
                return "body:without-usage";
            }
            return ApacheHttpApp.outcome(status, decision(response));
        }
    }

    private static String decision(org.apache.http.HttpResponse response) {
        Header h = response.getFirstHeader("x-sluice-decision");
        return h == null ? null : h.getValue();
    }

    @Override
    public void callAndDrop(String callId, String body) throws Exception {
        CloseableHttpResponse response = client.execute(post(callId, body, null));
        if (response.getStatusLine().getStatusCode() != 200) {
            throw new IllegalStateException("status " + response.getStatusLine());
        }
        // dropped: neither read nor closed
    }

    @Override
    public int connectionsPerRoute() {
        return PER_ROUTE;
    }
}
