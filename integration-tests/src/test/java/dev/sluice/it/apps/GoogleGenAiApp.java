package dev.sluice.it.apps;

import com.google.genai.Client;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.HttpOptions;
import dev.sluice.it.harness.AppReport;

/**
 * A service using the real google-genai SDK at its default settings (its own retry interceptor of
 * 5 attempts included): one {@code generateContent} per call against the Gemini API.
 *
 * <p>Arguments: baseUrl threads calls
 */
public final class GoogleGenAiApp {

    public static void main(String[] args) throws Exception {
        Client client = Client.builder()
                .apiKey("gemini-test-key")
                .httpOptions(HttpOptions.builder().baseUrl(args[0]).build())
                .build();
        GenerateContentConfig config =
                GenerateContentConfig.builder().maxOutputTokens(32).build();
        AppReport report = Load.closedLoop(
                Integer.parseInt(args[1]),
                Integer.parseInt(args[2]),
                (thread, i) -> client.models.generateContent(
                        "gemini-2.0-flash", "Say hello to the integration test, briefly.", config),
                failure -> null);
        Load.finish(report);
    }
}
