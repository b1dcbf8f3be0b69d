package dev.sluice.it.providers;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.harness.AppReport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A running service that built its clients long before anyone attached Sluice: an openai-java
 * client at its defaults and a raw OkHttpClient. It makes {@code calls} chat completions with each
 * ("before"), prints {@code READY}, waits for a line on standard input (the test attaches the agent
 * meanwhile), then makes the same calls with the same client objects ("after"). Outcomes are
 * counted per phase and client: {@code before.openai.ok}, {@code after.okhttp.429:rejected_locally}...
 *
 * <p>Arguments: apiBaseUrl (ending in /v1) calls
 */
public final class LateAttachApp {

    private static final String BODY = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":"
            + "\"Say hello to the integration test, briefly.\"}],\"max_tokens\":32}";

    public static void main(String[] args) throws Exception {
        String base = args[0];
        int calls = Integer.parseInt(args[1]);
        OpenAIClient openai = OpenAIOkHttpClient.builder()
                .baseUrl(base)
                .apiKey("sk-late-attach")
                .build();
        OkHttpClient okhttp = new OkHttpClient();
        AppReport report = new AppReport();
        phase("before", calls, openai, okhttp, base, report);
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        phase("after", calls, openai, okhttp, base, report);
        report.print();
        okhttp.dispatcher().executorService().shutdown();
        System.exit(0);
    }

    private static void phase(
            String phase, int calls, OpenAIClient openai, OkHttpClient okhttp, String base, AppReport report) {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                .model(ChatModel.GPT_4O_MINI)
                .addUserMessage("Say hello to the integration test, briefly.")
                .maxCompletionTokens(32)
                .build();
        for (int i = 0; i < calls; i++) {
            report.call(() -> {
                try {
                    openai.chat().completions().create(params);
                    report.count(phase + ".openai.ok", 1);
                } catch (RateLimitException e) {
                    List<String> decision = e.headers().values("x-sluice-decision");
                    report.count(phase + ".openai.429:" + (decision.isEmpty() ? "provider" : decision.get(0)), 1);
                    throw e;
                }
            });
            report.call(() -> {
                Request request = new Request.Builder()
                        .url(base + "/chat/completions")
                        .header("Authorization", "Bearer sk-late-attach")
                        .post(RequestBody.create(BODY, MediaType.get("application/json")))
                        .build();
                try (Response response = okhttp.newCall(request).execute()) {
                    String decision = response.header("x-sluice-decision");
                    report.count(phase + ".okhttp." + response.code() + (decision == null ? "" : ":" + decision), 1);
                }
            });
        }
    }
}
