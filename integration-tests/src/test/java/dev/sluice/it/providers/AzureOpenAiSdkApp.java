package dev.sluice.it.providers;

import com.azure.ai.openai.OpenAIClient;
import com.azure.ai.openai.OpenAIClientBuilder;
import com.azure.ai.openai.models.ChatCompletionsOptions;
import com.azure.ai.openai.models.ChatRequestMessage;
import com.azure.ai.openai.models.ChatRequestUserMessage;
import com.azure.core.exception.HttpResponseException;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.core.util.ClientOptions;
import com.azure.core.util.Header;
import dev.sluice.it.harness.AppReport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A service calling Azure OpenAI through azure-ai-openai at its defaults (azure-core's
 * {@code RetryPolicy}: three retries of 429 and 5xx, honouring {@code retry-after}) on azure-core's
 * JDK HttpClient: {@code threads} threads each make {@code calls} chat completions. With a force
 * header every attempt gets the simulator's forced answer ({@code rate_limited}). Failures are
 * counted by status and whether the answer is Sluice's ({@code x-sluice-decision}).
 *
 * <p>Arguments: endpoint threads calls [force]
 */
public final class AzureOpenAiSdkApp {

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        int threads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        String force = args.length > 3 ? args[3] : null;
        // the key as a plain header: azure-core's KeyCredentialPolicy refuses to send one over http://
        List<Header> headers = new ArrayList<>();
        headers.add(new Header("api-key", "az-sdk-test-key"));
        if (force != null) {
            headers.add(new Header("x-sim-force", force));
        }
        OpenAIClient client = new OpenAIClientBuilder()
                .endpoint(endpoint)
                .httpClient(new JdkHttpClientBuilder().build())
                .clientOptions(new ClientOptions().setHeaders(headers))
                .buildClient();
        List<ChatRequestMessage> messages =
                Collections.singletonList(new ChatRequestUserMessage("Say hello to the integration test, briefly."));
        AppReport report = new AppReport();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    report.call(() -> {
                        try {
                            client.getChatCompletions(
                                    "gpt-4o-mini", new ChatCompletionsOptions(messages).setMaxTokens(16));
                            report.count("chat.complete", 1);
                        } catch (HttpResponseException e) {
                            String decision = e.getResponse().getHeaderValue("x-sluice-decision");
                            report.count(
                                    "status:" + e.getResponse().getStatusCode()
                                            + (decision == null ? ":provider" : ":sluice"),
                                    1);
                            throw e;
                        }
                    });
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(3, TimeUnit.MINUTES);
        report.countRetryLayers();
        report.print();
        System.exit(0);
    }
}
