package dev.sluice.it.providers;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.RateLimitException;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.Model;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.sluice.it.harness.AppReport;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A service using anthropic-java 3.14.0 at its defaults (retries, timeouts): {@code threads}
 * callers each make {@code calls} messages, half of the threads streaming when {@code mode} is
 * {@code mixed}. A 429 is counted as {@code rejected:<decision>} when Sluice answered it (its
 * {@code x-sluice-decision} header) and {@code rejected:provider} when the provider did.
 *
 * <p>Arguments: baseUrl threads calls mode(sync|stream|mixed)
 */
public final class AnthropicApp {

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        int threads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        String mode = args[3];
        AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(baseUrl)
                .apiKey("sk-ant-test-app")
                .build();
        MessageCreateParams params = MessageCreateParams.builder()
                .model(Model.CLAUDE_SONNET_4_5)
                .maxTokens(32)
                .addUserMessage("Say hello to the integration test, briefly.")
                .build();
        AppReport report = new AppReport();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            boolean streaming = mode.equals("stream") || (mode.equals("mixed") && t % 2 == 1);
            pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    report.call(() -> {
                        try {
                            if (streaming) {
                                try (StreamResponse<RawMessageStreamEvent> stream =
                                        client.messages().createStreaming(params)) {
                                    long stops = stream.stream()
                                            .filter(RawMessageStreamEvent::isMessageStop)
                                            .count();
                                    report.count(stops == 1 ? "streams.complete" : "streams.broken", 1);
                                }
                            } else {
                                client.messages().create(params);
                                report.count("sync.complete", 1);
                            }
                        } catch (RateLimitException e) {
                            List<String> decision = e.headers().values("x-sluice-decision");
                            report.count("rejected:" + (decision.isEmpty() ? "provider" : decision.get(0)), 1);
                            throw e;
                        }
                    });
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.MINUTES);
        report.print();
        client.close();
        System.exit(0);
    }
}
