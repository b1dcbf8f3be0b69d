package dev.sluice.it.providers;

import com.google.genai.Client;
import com.google.genai.ResponseStream;
import com.google.genai.errors.ApiException;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.GenerateContentResponse;
import com.google.genai.types.HttpOptions;
import dev.sluice.it.harness.AppReport;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A service using google-genai 2.0.0 at its defaults (its own retry interceptor included):
 * {@code threads} callers each make {@code calls} generateContent calls, odd threads streaming.
 * An ApiException is counted as {@code rejected:local} when it carries Sluice's ErrorInfo (domain
 * {@code sluice.dev}) and {@code rejected:provider:<code>} otherwise.
 *
 * <p>Arguments: baseUrl threads calls
 */
public final class GeminiApp {

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        int threads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        Client client = Client.builder()
                .apiKey("gm-test-key")
                .httpOptions(HttpOptions.builder().baseUrl(baseUrl).build())
                .build();
        GenerateContentConfig config =
                GenerateContentConfig.builder().maxOutputTokens(32).build();
        String model = "gemini-2.0-flash";
        String prompt = "Say hello to the integration test, briefly.";
        AppReport report = new AppReport();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            boolean streaming = t % 2 == 1;
            pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    report.call(() -> {
                        try {
                            if (streaming) {
                                try (ResponseStream<GenerateContentResponse> stream =
                                        client.models.generateContentStream(model, prompt, config)) {
                                    int chunks = 0;
                                    for (GenerateContentResponse ignored : stream) {
                                        chunks++;
                                    }
                                    report.count(chunks > 0 ? "streams.complete" : "streams.empty", 1);
                                }
                            } else {
                                client.models.generateContent(model, prompt, config);
                                report.count("sync.complete", 1);
                            }
                        } catch (ApiException e) {
                            boolean local =
                                    e.getMessage() != null && e.getMessage().contains("sluice.dev");
                            report.count(local ? "rejected:local" : "rejected:provider:" + e.code(), 1);
                            throw e;
                        }
                    });
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.MINUTES);
        report.print();
        System.exit(0);
    }
}
