package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.JsonValue;
import com.openai.errors.RateLimitException;
import dev.sluice.it.harness.AppReport;
import java.util.Map;
import java.util.Optional;

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
        CountingHttpClient counting = new CountingHttpClient();
        OpenAIClient client = new OpenAIClientImpl(ClientOptions.builder()
                .httpClient(counting)
                .baseUrl(args[0])
                .apiKey("sk-test-interactive")
                .putHeader("X-Sluice-Class", "interactive")
                .build());
        AppReport report = new AppReport();
        for (int call = 1; call <= 2; call++) {
            counting.reset();
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
            report.count("attempts.call" + call, counting.attempts());
        }
        Load.finish(report);
    }

    private static String text(JsonValue v) {
        Optional<String> s = v.asString();
        Optional<Number> n = v.asNumber();
        return s.orElseGet(() -> n.map(String::valueOf).orElseGet(v::toString));
    }
}
