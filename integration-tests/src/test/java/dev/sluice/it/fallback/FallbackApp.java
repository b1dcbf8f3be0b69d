package dev.sluice.it.fallback;

import com.openai.azure.credential.AzureApiKeyCredential;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.harness.AppReport;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A service calling Azure OpenAI through openai-java (OkHttp) with the primary region's key:
 * callers of each traffic class ({@code X-Sluice-Class}) make chat completions one after the
 * other, each with a call id the simulators count attempts by. Counted per class: answers by the
 * route that served them ({@code sluice-route}), failures by status and the route the answer
 * names, and each call's latency ({@code <class>.ms}, in the report's group).
 *
 * <p>Arguments: endpoint (class:threads:calls)...
 */
public final class FallbackApp {

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        OpenAIClient client = OpenAIOkHttpClient.builder()
                .baseUrl(endpoint)
                .credential(AzureApiKeyCredential.create("east-key"))
                .build();
        AppReport report = new AppReport();
        // one call first, outside the figures: the agent's and the SDK's first call load their classes
        call(client, "batch", report.group("warm-up"));
        List<Thread> callers = new ArrayList<>();
        for (int a = 1; a < args.length; a++) {
            String[] spec = args[a].split(":");
            String trafficClass = spec[0];
            int threads = Integer.parseInt(spec[1]);
            int calls = Integer.parseInt(spec[2]);
            AppReport group = report.group(trafficClass);
            for (int t = 0; t < threads; t++) {
                Thread caller = new Thread(() -> {
                    for (int i = 0; i < calls; i++) {
                        call(client, trafficClass, group);
                    }
                });
                caller.start();
                callers.add(caller);
            }
        }
        for (Thread caller : callers) {
            caller.join(TimeUnit.MINUTES.toMillis(3));
        }
        report.print();
        System.exit(0);
    }

    private static void call(OpenAIClient client, String trafficClass, AppReport group) {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                .model("gpt-4o-mini")
                .addUserMessage("Say hello to the integration test, briefly.")
                .maxCompletionTokens(16)
                .putAdditionalHeader("X-Sluice-Class", trafficClass)
                .putAdditionalHeader("x-call-id", UUID.randomUUID().toString())
                .build();
        long begun = group.begin();
        try (HttpResponseFor<ChatCompletion> answer =
                client.chat().completions().withRawResponse().create(params)) {
            answer.parse();
            group.succeeded(begun);
            group.count(
                    "route:"
                            + answer.headers().values("sluice-route").stream()
                                    .findFirst()
                                    .orElse("none"),
                    1);
        } catch (OpenAIServiceException e) {
            group.failed(begun, e);
            group.count(
                    "status:" + e.statusCode() + ":"
                            + e.headers().values("sluice-route").stream()
                                    .findFirst()
                                    .orElse("none"),
                    1);
        } catch (Exception e) {
            group.failed(begun, e);
            group.count("failure:" + e.getClass().getSimpleName(), 1);
        }
    }

    private FallbackApp() {}
}
