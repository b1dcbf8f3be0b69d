package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.harness.AppReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A multi-tenant service on openai-java: each tenant has its own client whose calls name the
 * tenant ({@code X-Sluice-Tenant}, and {@code x-sim-tenant} for the simulator's ledger) and the
 * traffic class ({@code X-Sluice-Class}). A tenant either runs closed-loop callers, or (with a
 * period) starts one call every period whatever the others do. Every call carries an id
 * ({@code x-sim-call-id}); each client makes one warm-up call before the clock starts (the JVM's
 * cold start is not part of the load); for open-loop tenants the start of each call is noted (epoch
 * milliseconds) so the test can read each call's admission wait off the simulator's ledger.
 *
 * <p>Arguments: baseUrl seconds tenant... where a tenant is
 * {@code name:class:callers:maxTokens:startSecond[:periodMillis]}
 */
public final class TenantsApp {

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        long seconds = Long.parseLong(args[1]);
        AppReport report = new AppReport();
        List<ExecutorService> pools = new ArrayList<>();
        AtomicLong ids = new AtomicLong();
        Map<String, OpenAIClient> clients = new LinkedHashMap<>();
        for (int a = 2; a < args.length; a++) {
            String[] spec = args[a].split(":");
            OpenAIClient client = OpenAIOkHttpClient.builder()
                    .baseUrl(baseUrl)
                    .apiKey("sk-test-tenants")
                    .putHeader("X-Sluice-Tenant", spec[0])
                    .putHeader("x-sim-tenant", spec[0])
                    .putHeader("X-Sluice-Class", spec[1])
                    .build();
            // one call each first: the measured load must not include the JVM's cold start
            client.chat()
                    .completions()
                    .create(ChatCompletionCreateParams.builder()
                            .model(ChatModel.GPT_4O_MINI)
                            .addUserMessage("warm up")
                            .maxCompletionTokens(1)
                            .build());
            clients.put(spec[0], client);
        }
        long t0 = System.currentTimeMillis();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        report.note("t0", Long.toString(t0));
        for (int a = 2; a < args.length; a++) {
            String[] spec = args[a].split(":");
            String tenant = spec[0];
            int callers = Integer.parseInt(spec[2]);
            long maxTokens = Long.parseLong(spec[3]);
            long startMillis = Long.parseLong(spec[4]) * 1000;
            long periodMillis = spec.length > 5 ? Long.parseLong(spec[5]) : 0;
            OpenAIClient client = clients.get(tenant);
            AppReport group = report.group(tenant);
            Runnable oneCall = () -> {
                String id = tenant + "-" + ids.incrementAndGet();
                if (periodMillis > 0) {
                    report.note("start." + id, Long.toString(System.currentTimeMillis()));
                }
                group.call(() -> {
                    try {
                        client.chat()
                                .completions()
                                .create(ChatCompletionCreateParams.builder()
                                        .model(ChatModel.GPT_4O_MINI)
                                        .addUserMessage("Write a short report for tenant " + tenant + ".")
                                        .maxCompletionTokens(maxTokens)
                                        .putAdditionalHeader("x-sim-call-id", id)
                                        .build());
                    } catch (Throwable failure) {
                        group.count(Outcomes.classify(failure, OpenAiChatApp.body(failure)), 1);
                        throw failure;
                    }
                });
            };
            if (periodMillis > 0) {
                ScheduledExecutorService clock = Executors.newScheduledThreadPool(4);
                pools.add(clock);
                for (long at = startMillis; at < seconds * 1000; at += periodMillis) {
                    clock.schedule(oneCall, at, TimeUnit.MILLISECONDS);
                }
                continue;
            }
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            pools.add(pool);
            for (int c = 0; c < callers; c++) {
                pool.submit(() -> {
                    sleepMillis(startMillis - (System.currentTimeMillis() - t0));
                    while (System.nanoTime() - end < 0) {
                        oneCall.run();
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

    private static void sleepMillis(long millis) {
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
