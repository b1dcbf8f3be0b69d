package dev.sluice.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's service, run in its own JVM (with or without the agent): a few tenants calling
 * OpenAI through the real openai-java SDK at its default settings, each caller in a loop for a
 * fixed time. Tenants and classes travel as {@code X-Sluice-*} headers (Sluice reads and strips
 * them) and as {@code x-sim-*} headers (the simulator's ledger reads them). Prints progress, then
 * one {@code SUMMARY {json}} line.
 *
 * <p>Arguments: baseUrl seconds tenant:class:callers:thinkMillis...
 */
public final class Workload {

    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        Duration length = Duration.ofSeconds(Long.parseLong(args[1]));
        List<Tenant> tenants = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            String[] p = args[i].split(":");
            tenants.add(new Tenant(p[0], p[1], Integer.parseInt(p[2]), Long.parseLong(p[3])));
        }
        Map<String, Figures> byTenant = new ConcurrentHashMap<>();
        Map<String, Figures> byClass = new ConcurrentHashMap<>();
        AtomicLong callIds = new AtomicLong();
        long end = System.nanoTime() + length.toNanos();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch done =
                new CountDownLatch(tenants.stream().mapToInt(Tenant::callers).sum());
        for (Tenant tenant : tenants) {
            OpenAIClient client = OpenAIOkHttpClient.builder()
                    .baseUrl(baseUrl)
                    .apiKey("sk-demo-key")
                    .putHeader("X-Sluice-Tenant", tenant.name())
                    .putHeader("X-Sluice-Class", tenant.trafficClass())
                    .putHeader("x-sim-tenant", tenant.name())
                    .build();
            Figures t = byTenant.computeIfAbsent(tenant.name(), k -> new Figures());
            Figures c = byClass.computeIfAbsent(tenant.trafficClass(), k -> new Figures());
            for (int i = 0; i < tenant.callers(); i++) {
                Thread caller = new Thread(
                        () -> {
                            try {
                                boolean first = true;
                                while (System.nanoTime() < end) {
                                    call(client, tenant, callIds.incrementAndGet(), t, c, first);
                                    first = false;
                                    if (tenant.thinkMillis() > 0) {
                                        pause(tenant.thinkMillis());
                                    }
                                }
                            } finally {
                                done.countDown();
                            }
                        },
                        "demo-" + tenant.name() + "-" + i);
                caller.setDaemon(true);
                threads.add(caller);
            }
        }
        threads.forEach(Thread::start);
        long started = System.nanoTime();
        // calls still waiting for admission when the time is up are reported as unfinished
        long giveUp = end + Duration.ofSeconds(10).toNanos();
        while (!done.await(5, java.util.concurrent.TimeUnit.SECONDS) && System.nanoTime() < giveUp) {
            long calls =
                    byTenant.values().stream().mapToLong(f -> f.calls.get()).sum();
            long ok =
                    byTenant.values().stream().mapToLong(f -> f.completed.get()).sum();
            System.out.printf("PROGRESS %d %d %d%n", (System.nanoTime() - started) / 1_000_000_000L, calls, ok);
            System.out.flush();
        }
        ObjectNode summary = JSON.createObjectNode();
        ObjectNode tenantsNode = summary.putObject("tenants");
        byTenant.forEach((name, f) -> tenantsNode.set(name, f.toJson()));
        ObjectNode classesNode = summary.putObject("classes");
        byClass.forEach((name, f) -> classesNode.set(name, f.toJson()));
        System.out.println("SUMMARY " + summary);
        System.out.flush();
        System.exit(0);
    }

    /**
     * One call. The first call of each caller is not timed: it pays for the SDK's own start-up
     * (class loading, JSON mapping set-up), seconds on a busy machine, with or without Sluice.
     */
    private static void call(OpenAIClient client, Tenant tenant, long callId, Figures t, Figures c, boolean first) {
        if (Thread.currentThread().isInterrupted()) {
            return;
        }
        long start = System.nanoTime();
        t.calls.incrementAndGet();
        c.calls.incrementAndGet();
        try {
            client.chat()
                    .completions()
                    .create(ChatCompletionCreateParams.builder()
                            .model(ChatModel.GPT_4O_MINI)
                            .addUserMessage("Summarise today's tickets for " + tenant.name() + " in one line.")
                            .maxCompletionTokens(48)
                            .putAdditionalHeader("x-sim-call-id", tenant.name() + "-" + callId)
                            .build());
            t.completed.incrementAndGet();
            c.completed.incrementAndGet();
            long millis = (System.nanoTime() - start) / 1_000_000;
            if (!first) {
                c.latencies.add(millis);
                t.latencies.add(millis);
            }
        } catch (RateLimitException e) {
            boolean local = e.body().toString().contains("gateway_decision");
            (local ? t.localRejections : t.providerRejections).incrementAndGet();
            (local ? c.localRejections : c.providerRejections).incrementAndGet();
            pause(200); // a real service would back off or degrade; don't spin
        } catch (RuntimeException e) {
            t.errors.incrementAndGet();
            c.errors.incrementAndGet();
            if (System.getProperty("demo.debug") != null) {
                e.printStackTrace();
            }
            pause(200);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What one tenant or class saw. */
    static final class Figures {
        final AtomicLong calls = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong localRejections = new AtomicLong();
        final AtomicLong providerRejections = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();

        ObjectNode toJson() {
            ObjectNode n = JSON.createObjectNode();
            n.put("calls", calls.get());
            n.put("completed", completed.get());
            n.put("localRejections", localRejections.get());
            n.put("providerRejections", providerRejections.get());
            n.put("errors", errors.get());
            List<Long> sorted = new ArrayList<>(latencies);
            Collections.sort(sorted);
            n.put("p50Millis", percentile(sorted, 0.50));
            n.put("p95Millis", percentile(sorted, 0.95));
            return n;
        }

        private static long percentile(List<Long> sorted, double q) {
            return sorted.isEmpty() ? 0 : sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
        }
    }
}
