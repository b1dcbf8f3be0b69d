package dev.sluice.it.fleet;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.harness.AppReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * One instance of a service in a fleet: it offers chat completions at a fixed rate (open loop,
 * like traffic from users) for a while with the real openai-java SDK, then reports what happened,
 * including what the Sluice store says over JMX ({@code dev.sluice:type=Store}).
 *
 * <p>Arguments: baseUrl callsPerSecond seconds threads [stream]. A provider 429 reaches it as
 * RateLimitException without a {@code sluice} object; a local rejection with one. With
 * {@code -Dfleet.awaitGo=true} the load starts only when a line comes on standard input, so a
 * fleet starts its load together, after every instance's warm-up call has been answered.
 */
public final class FleetChatApp {

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        double rate = Double.parseDouble(args[1]);
        double seconds = Double.parseDouble(args[2]);
        int threads = Integer.parseInt(args[3]);
        boolean stream = args.length > 4 && args[4].equals("stream");
        OpenAIClient client =
                OpenAIOkHttpClient.builder().baseUrl(baseUrl).apiKey("sk-fleet").build();
        AppReport report = new AppReport();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        warmUp(client);
        System.out.println("READY");
        System.out.flush();
        if (Boolean.getBoolean("fleet.awaitGo")) {
            awaitGo();
        }
        long start = System.nanoTime();
        long total = Math.round(rate * seconds);
        for (long i = 0; i < total; i++) {
            long at = start + (long) (i * 1e9 / rate);
            long wait = at - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            pool.submit(() -> report.call(() -> {
                ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                        .model(ChatModel.GPT_4O_MINI)
                        .addUserMessage("Hello from one instance of the fleet.")
                        .maxCompletionTokens(8)
                        .build();
                try {
                    if (stream) {
                        try (StreamResponse<ChatCompletionChunk> s =
                                client.chat().completions().createStreaming(params)) {
                            s.stream().forEach(chunk -> report.count("chunks", 1));
                        }
                    } else {
                        client.chat().completions().create(params);
                    }
                } catch (RateLimitException e) {
                    report.count(e.body().toString().contains("sluice") ? "rejectedLocally" : "provider429", 1);
                    throw e;
                }
            }));
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.MINUTES);
        storeFigures(report);
        report.print();
        System.exit(0);
    }

    /**
     * One call before the load, as a service has made by the time it is busy: a cold JVM's first
     * calls (OkHttp and the SDK loading their classes after admission) can take longer to reach the
     * provider than the last tenth of a one-second window, where a mirrored window stops admitting.
     */
    private static void warmUp(OpenAIClient client) {
        try {
            client.chat()
                    .completions()
                    .create(ChatCompletionCreateParams.builder()
                            .model(ChatModel.GPT_4O_MINI)
                            .addUserMessage("warm-up")
                            .maxCompletionTokens(1)
                            .build());
        } catch (RuntimeException e) {
            System.err.println("warm-up call failed: " + e);
        }
    }

    /** Blocks until the test sends the start line (or closes standard input). */
    private static void awaitGo() throws IOException {
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }

    /** What the agent's store says over JMX: a fallback and a recovery are visible there too. */
    private static void storeFigures(AppReport report) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName store = new ObjectName("dev.sluice:type=Store");
            if (server.isRegistered(store)) {
                for (String a : new String[] {"Calls", "Fallbacks", "Recoveries", "Grants", "Refusals"}) {
                    report.count("store" + a, ((Number) server.getAttribute(store, a)).longValue());
                }
                report.count("storeInstances", ((Number) server.getAttribute(store, "Instances")).longValue());
            }
        } catch (Exception e) {
            report.failure("jmx:" + e.getClass().getSimpleName());
        }
    }
}
