package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.JsonValue;
import com.openai.core.RequestOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import com.openai.errors.RateLimitException;
import dev.sluice.it.harness.AppReport;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An interactive openai-java service at its default settings (2 retries) whose second call meets
 * a local rejection. Beneath the SDK's retry loop a transport counts the SDK's attempts, so the
 * test can tell the SDK did not retry what Sluice already decided. The second call's
 * RateLimitException is read the way an application would: its {@code sluice} object.
 *
 * <p>Arguments: baseUrl
 */
public final class OpenAiLocalRejectionApp {

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        AtomicLong attempts = new AtomicLong();
        HttpClient transport = com.openai.client.okhttp.OkHttpClient.builder().build();
        HttpClient counting = new HttpClient() {
            @Override
            public HttpResponse execute(HttpRequest request, RequestOptions options) {
                attempts.incrementAndGet();
                return transport.execute(request, options);
            }

            @Override
            public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
                attempts.incrementAndGet();
                return transport.executeAsync(request, options);
            }

            @Override
            public void close() {
                transport.close();
            }
        };
        OpenAIClient client = new OpenAIClientImpl(ClientOptions.builder()
                .httpClient(counting)
                .baseUrl(args[0])
                .apiKey("sk-test-interactive")
                .putHeader("X-Sluice-Class", "interactive")
                .build());
        AppReport report = new AppReport();
        for (int call = 1; call <= 2; call++) {
            attempts.set(0);
            report.call(() -> {
                try {
                    client.chat().completions().create(OpenAiChatApp.params());
                } catch (RateLimitException e) {
                    report.count(Outcomes.classify(e, OpenAiChatApp.body(e)), 1);
                    report.note("exception", e.getClass().getName());
                    report.note("message", e.getMessage());
                    Optional<Map<String, JsonValue>> error = e.body().asObject();
                    Optional<Map<String, JsonValue>> sluice =
                            error.orElseThrow().get("sluice").asObject();
                    sluice.orElseThrow().forEach((k, v) -> report.note("sluice." + k, text(v)));
                    throw e;
                }
            });
            report.count("attempts.call" + call, attempts.get());
        }
        Load.finish(report);
    }

    private static String text(JsonValue v) {
        Optional<String> s = v.asString();
        Optional<Number> n = v.asNumber();
        return s.orElseGet(() -> n.map(String::valueOf).orElseGet(v::toString));
    }
}
