package dev.sluice.it.field;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import dev.sluice.it.apps.Load;
import dev.sluice.it.apps.Outcomes;
import dev.sluice.it.harness.AppReport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A service on openai-java at its default settings whose tenants each have their own API key (and
 * name themselves in {@code X-Sluice-Tenant}, and {@code x-sim-tenant} for the simulator's
 * ledger). Callers run closed loops, synchronously or streaming with {@code include_usage}, either
 * until a number of calls shared by everyone is used up or for a number of seconds. No warm-up:
 * the cold start is part of what is measured.
 *
 * <p>Arguments: baseUrl sync|stream maxTokens promptChars seconds totalCalls tenant... where a
 * tenant is {@code name:apiKey:callers}; totalCalls 0 means "run for the seconds".
 */
public final class FieldApp {

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        boolean stream = args[1].equals("stream");
        long maxTokens = Long.parseLong(args[2]);
        String prompt = "Summarise this: " + "lorem ipsum ".repeat(Math.max(0, Integer.parseInt(args[3]) / 12));
        long seconds = Long.parseLong(args[4]);
        AtomicInteger callsLeft = new AtomicInteger(Integer.parseInt(args[5]));
        boolean counted = callsLeft.get() > 0;
        AppReport report = new AppReport();
        AtomicLong ids = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<ExecutorService> pools = new ArrayList<>();
        for (int a = 6; a < args.length; a++) {
            String[] spec = args[a].split(":");
            String tenant = spec[0];
            int callers = Integer.parseInt(spec[2]);
            OpenAIClient client = OpenAIOkHttpClient.builder()
                    .baseUrl(baseUrl)
                    .apiKey(spec[1])
                    .putHeader("X-Sluice-Tenant", tenant)
                    .putHeader("x-sim-tenant", tenant)
                    .build();
            AppReport group = report.group(tenant);
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            pools.add(pool);
            for (int c = 0; c < callers; c++) {
                pool.submit(() -> {
                    while (counted ? callsLeft.getAndDecrement() > 0 : System.nanoTime() - end < 0) {
                        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder()
                                .model(ChatModel.GPT_4O_MINI)
                                .addUserMessage(prompt)
                                .maxCompletionTokens(maxTokens)
                                .putAdditionalHeader("x-sim-call-id", tenant + "-" + ids.incrementAndGet());
                        group.call(() -> {
                            try {
                                if (stream) {
                                    params.streamOptions(ChatCompletionStreamOptions.builder()
                                            .includeUsage(true)
                                            .build());
                                    try (StreamResponse<ChatCompletionChunk> s =
                                            client.chat().completions().createStreaming(params.build())) {
                                        if (s.stream().count() == 0) {
                                            throw new IllegalStateException("empty stream");
                                        }
                                    }
                                } else {
                                    client.chat().completions().create(params.build());
                                }
                            } catch (Throwable failure) {
                                group.count(Outcomes.classify(failure, body(failure)), 1);
                                throw failure;
                            }
                        });
                    }
                });
            }
        }
        for (ExecutorService pool : pools) {
            pool.shutdown();
        }
        for (ExecutorService pool : pools) {
            if (!pool.awaitTermination(seconds + 120, TimeUnit.SECONDS)) {
                report.count("unfinished", 1);
            }
        }
        Load.finish(report);
    }

    private static String body(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof com.openai.errors.OpenAIServiceException)) {
            t = t.getCause();
        }
        return t == null ? null : String.valueOf(((com.openai.errors.OpenAIServiceException) t).body());
    }
}
