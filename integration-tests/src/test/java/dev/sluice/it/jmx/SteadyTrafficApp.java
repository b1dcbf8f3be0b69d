package dev.sluice.it.jmx;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.apps.OpenAiChatApp;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A service that keeps calling: for each tenant, {@code threads} callers make chat completions
 * with the real openai-java SDK, one after the other, until the JVM is stopped or
 * {@code seconds} pass. The first time a tenant meets an outcome it prints
 * {@code OUTCOME <tenant> <outcome>} ({@code ok}, or {@code rejected:<sluice decision>}).
 *
 * <p>Arguments: baseUrl seconds threadsPerTenant tenant...
 */
public final class SteadyTrafficApp {

    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        int threads = Integer.parseInt(args[2]);
        for (int i = 3; i < args.length; i++) {
            String tenant = args[i];
            OpenAIClient client = OpenAIOkHttpClient.builder()
                    .baseUrl(baseUrl)
                    .apiKey("sk-steady-app")
                    .putHeader("X-Sluice-Tenant", tenant)
                    .putHeader("x-sim-tenant", tenant)
                    .build();
            for (int t = 0; t < threads; t++) {
                Thread caller = new Thread(() -> callUntil(client, tenant, end), "caller-" + tenant + "-" + t);
                caller.start();
            }
        }
    }

    private static void callUntil(OpenAIClient client, String tenant, long end) {
        while (System.nanoTime() - end < 0) {
            try {
                client.chat()
                        .completions()
                        .create(ChatCompletionCreateParams.builder()
                                .model(ChatModel.GPT_4O_MINI)
                                .addUserMessage("Say hello to the JMX test, briefly.")
                                .maxCompletionTokens(16)
                                .build());
                seen(tenant, "ok");
            } catch (RateLimitException e) {
                seen(tenant, "rejected:" + OpenAiChatApp.sluiceDecision(e));
                pause();
            } catch (RuntimeException e) {
                seen(tenant, "failed:" + e.getClass().getSimpleName());
                pause();
            }
        }
        System.exit(0);
    }

    private static void seen(String tenant, String outcome) {
        if (SEEN.add(tenant + " " + outcome)) {
            System.out.println("OUTCOME " + tenant + " " + outcome);
            System.out.flush();
        }
    }

    /** A refused caller backs off a little, as a real one would, instead of spinning. */
    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
