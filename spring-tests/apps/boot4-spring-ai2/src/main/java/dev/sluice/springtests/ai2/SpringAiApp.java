package dev.sluice.springtests.ai2;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring AI 2.0 service on Boot 4 as its users write one: a {@link ChatClient} from Boot's
 * auto-configuration on {@code spring.ai.openai.*}, which in 2.0 sits on openai-java (its own
 * OkHttp client, its retries set by {@code spring.ai.openai.max-retries}), no Sluice code. It makes {@code app.sync-calls} calls and {@code app.stream-calls} streaming
 * calls on {@code app.threads} threads, each tagged with a call id for the simulator's ledger, then
 * prints one line {@code SUMMARY {json}}: what completed, what failed and why, and Sluice's JMX
 * figures when the agent is there.
 */
@SpringBootApplication
public class SpringAiApp implements CommandLineRunner {

    private final ChatClient chat;

    @Value("${app.sync-calls:0}")
    int syncCalls;

    @Value("${app.stream-calls:0}")
    int streamCalls;

    @Value("${app.threads:6}")
    int threads;

    @Value("${app.max-tokens:32}")
    int maxTokens;

    /** A simulator fault every request forces (x-sim-force), or empty. */
    @Value("${app.force:}")
    String force;

    private final AtomicLong completed = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final Map<String, String> notes = new ConcurrentHashMap<>();

    public SpringAiApp(ChatClient.Builder builder) {
        this.chat = builder.build();
    }

    public static void main(String[] args) {
        SpringApplication app = new SpringApplication(SpringAiApp.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.run(args).close();
        // an HTTP client's idle non-daemon threads (OkHttp's dispatcher keeps them 60 s) must not hold the JVM
        System.out.flush();
        System.exit(0);
    }

    @Override
    public void run(String... args) throws Exception {
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> all = new ArrayList<>();
        for (int i = 0; i < syncCalls; i++) {
            String id = "sync-" + i;
            all.add(pool.submit(() -> call(id, false)));
        }
        for (int i = 0; i < streamCalls; i++) {
            String id = "stream-" + i;
            all.add(pool.submit(() -> call(id, true)));
        }
        for (Future<?> f : all) {
            f.get();
        }
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        report((System.nanoTime() - started) / 1_000_000);
    }

    private void call(String id, boolean stream) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-sim-call-id", id);
        if (!force.isEmpty()) {
            headers.put("x-sim-force", force);
        }
        // Spring AI 2.0 takes the options' builder: the request's own options are built from it
        var options = OpenAiChatOptions.builder().maxTokens(maxTokens).customHeaders(headers);
        try {
            var prompt = chat.prompt().user("Say hello to call " + id).options(options);
            if (stream) {
                List<String> parts = prompt.stream().content().collectList().block();
                if (parts == null || parts.isEmpty()) {
                    throw new IllegalStateException("empty stream");
                }
            } else {
                String content = prompt.call().content();
                if (content == null) {
                    throw new IllegalStateException("no content");
                }
            }
            completed.incrementAndGet();
        } catch (Throwable t) {
            failures.computeIfAbsent(t.getClass().getSimpleName(), k -> new AtomicLong())
                    .incrementAndGet();
            notes.putIfAbsent("failure:" + t.getClass().getSimpleName(), String.valueOf(t.getMessage()));
        }
    }

    private void report(long elapsedMillis) throws Exception {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("calls", syncCalls + streamCalls);
        summary.put("completed", completed.get());
        Map<String, Long> failed = new TreeMap<>();
        failures.forEach((k, v) -> failed.put(k, v.get()));
        summary.put("failures", failed);
        summary.put("elapsedMillis", elapsedMillis);
        summary.put("notes", new TreeMap<>(notes));
        summary.put("sluice", sluice());
        System.out.println("SUMMARY " + new ObjectMapper().writeValueAsString(summary));
    }

    /** Sluice's Governor MBean, read as any JMX console would; empty without the agent. */
    private static Map<String, Object> sluice() throws InterruptedException {
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            // the agent registers its MXBeans a moment after start, off the host's start-up path
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ("starting".equals(System.getProperty("dev.sluice.agent.jmx")) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName governor = new ObjectName("dev.sluice:type=Governor");
            if (!server.isRegistered(governor)) {
                return out;
            }
            for (String attribute : new String[] {"Admitted", "Rejected", "RetryLayers", "UngovernedConnections"}) {
                Object value = server.getAttribute(governor, attribute);
                if (value instanceof javax.management.openmbean.TabularData table) {
                    Map<String, Object> map = new TreeMap<>();
                    for (Object row : table.values()) {
                        var data = (javax.management.openmbean.CompositeData) row;
                        map.put(String.valueOf(data.get("key")), data.get("value"));
                    }
                    value = map;
                }
                out.put(attribute, value);
            }
        } catch (Exception e) {
            out.put("error", e.toString());
        }
        return out;
    }
}
