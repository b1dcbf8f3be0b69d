package dev.sluice.it.field;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.Model;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.sluice.it.apps.Load;
import dev.sluice.it.apps.Outcomes;
import dev.sluice.it.harness.AppReport;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link FieldApp}'s service on anthropic-java at its default settings (retries, timeouts): one
 * tenant with its own API key, callers in a closed loop, synchronously or streaming, until a number
 * of calls shared by everyone is used up. No warm-up: the cold start is part of what is measured.
 * A stream counts as complete only when it reached {@code message_stop}.
 *
 * <p>Arguments: baseUrl sync|stream maxTokens promptChars totalCalls tenant:apiKey:callers
 */
public final class FieldAnthropicApp {

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        boolean stream = args[1].equals("stream");
        long maxTokens = Long.parseLong(args[2]);
        String prompt = "Summarise this: " + "lorem ipsum ".repeat(Math.max(0, Integer.parseInt(args[3]) / 12));
        AtomicInteger callsLeft = new AtomicInteger(Integer.parseInt(args[4]));
        String[] spec = args[5].split(":");
        String tenant = spec[0];
        int callers = Integer.parseInt(spec[2]);
        AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(baseUrl)
                .apiKey(spec[1])
                .putHeader("X-Sluice-Tenant", tenant)
                .putHeader("x-sim-tenant", tenant)
                .build();
        AppReport report = new AppReport();
        AppReport group = report.group(tenant);
        AtomicLong ids = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        for (int c = 0; c < callers; c++) {
            pool.submit(() -> {
                while (callsLeft.getAndDecrement() > 0) {
                    MessageCreateParams params = MessageCreateParams.builder()
                            .model(Model.CLAUDE_SONNET_4_5)
                            .maxTokens(maxTokens)
                            .addUserMessage(prompt)
                            .putAdditionalHeader("x-sim-call-id", tenant + "-" + ids.incrementAndGet())
                            .build();
                    group.call(() -> {
                        try {
                            if (stream) {
                                try (StreamResponse<RawMessageStreamEvent> s =
                                        client.messages().createStreaming(params)) {
                                    long stops = s.stream()
                                            .filter(RawMessageStreamEvent::isMessageStop)
                                            .count();
                                    if (stops != 1) {
                                        throw new IllegalStateException("stream without message_stop");
                                    }
                                }
                            } else {
                                client.messages().create(params);
                            }
                        } catch (Throwable failure) {
                            group.count(Outcomes.classify(failure, body(failure)), 1);
                            throw failure;
                        }
                    });
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(300, TimeUnit.SECONDS)) {
            report.count("unfinished", 1);
        }
        Load.finish(report);
    }

    private static String body(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof AnthropicServiceException)) {
            t = t.getCause();
        }
        return t == null ? null : String.valueOf(((AnthropicServiceException) t).body());
    }
}
