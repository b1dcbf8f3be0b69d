package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.RateLimitException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.harness.AppReport;
import java.util.Map;
import java.util.Optional;

/**
 * A service using the real openai-java SDK at its default settings, synchronously: {@code threads}
 * callers each make {@code calls} chat completions. A local rejection reaches it as the SDK's
 * RateLimitException; its Sluice decision is counted from the error body.
 *
 * <p>Arguments: baseUrl threads calls [tenant]
 */
public final class OpenAiChatApp {

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        int threads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        String tenant = args.length > 3 ? args[3] : null;
        OpenAIClient client = client(baseUrl, tenant);
        AppReport report = Load.closedLoop(
                threads, calls, (thread, i) -> client.chat().completions().create(params()), OpenAiChatApp::body);
        Load.finish(report);
    }

    public static OpenAIClient client(String baseUrl, String tenant) {
        OpenAIOkHttpClient.Builder builder =
                OpenAIOkHttpClient.builder().baseUrl(baseUrl).apiKey("sk-test-app");
        if (tenant != null) {
            builder.putHeader("X-Sluice-Tenant", tenant).putHeader("x-sim-tenant", tenant);
        }
        return builder.build();
    }

    public static ChatCompletionCreateParams params() {
        return ChatCompletionCreateParams.builder()
                .model(ChatModel.GPT_4O_MINI)
                .addUserMessage("Say hello to the integration test, briefly.")
                .maxCompletionTokens(32)
                .build();
    }

    /** The error body an openai-java exception kept, as JSON text; null for other failures. */
    public static String body(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof OpenAIServiceException)) {
            t = t.getCause();
        }
        return t == null ? null : String.valueOf(((OpenAIServiceException) t).body());
    }

    /** The {@code sluice.gateway_decision} of a local rejection, or {@code provider} for the provider's own 429. */
    @SuppressWarnings("unchecked")
    public static String sluiceDecision(RateLimitException e) {
        try {
            Optional<Map<String, JsonValue>> error = e.body().asObject();
            JsonValue sluice = error.map(m -> m.get("sluice")).orElse(null);
            if (sluice == null) {
                return "provider";
            }
            Optional<Map<String, JsonValue>> fields = sluice.asObject();
            JsonValue decision = fields.map(m -> m.get("gateway_decision")).orElse(null);
            Optional<String> text = decision == null ? Optional.empty() : decision.asString();
            return text.orElse("unknown");
        } catch (RuntimeException unreadable) {
            return "unreadable";
        }
    }
}
