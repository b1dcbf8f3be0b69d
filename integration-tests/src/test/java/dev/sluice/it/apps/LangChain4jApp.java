package dev.sluice.it.apps;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.sluice.it.harness.AppReport;

/**
 * A service using langchain4j's {@code OpenAiChatModel} over its JDK HTTP client, at its default
 * settings (its own retry loop of 2 retries included): one chat per call.
 *
 * <p>Arguments: baseUrl threads calls
 */
public final class LangChain4jApp {

    public static void main(String[] args) throws Exception {
        OpenAiChatModel model = OpenAiChatModel.builder()
                .baseUrl(args[0])
                .apiKey("sk-test-langchain4j")
                .modelName("gpt-4o-mini")
                .maxTokens(32)
                .httpClientBuilder(JdkHttpClient.builder())
                .build();
        AppReport report = Load.closedLoop(
                Integer.parseInt(args[1]),
                Integer.parseInt(args[2]),
                (thread, i) -> model.chat("Say hello to the integration test, briefly."),
                failure -> null);
        Load.finish(report);
    }
}
