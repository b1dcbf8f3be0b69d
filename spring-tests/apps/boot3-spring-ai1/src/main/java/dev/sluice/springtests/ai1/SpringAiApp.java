package dev.sluice.springtests.ai1;

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
import java.util.concurrent.atomic.AtomicInteger;
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
import org.springframework.retry.RetryCallback;
import org.springframework.retry.RetryContext;
import org.springframework.retry.RetryListener;
import org.springframework.retry.support.RetryTemplate;

/**
 * A Spring AI 1.1 service as its users write one: a {@link ChatClient} from Boot's auto-configuration
 * on {@code spring.ai.openai.*}, Spring AI's own {@link RetryTemplate} ({@code spring.ai.retry.*}),
 * no Sluice code. It makes {@code app.sync-calls} calls and {@code app.stream-calls} streaming
 * calls on {@code app.threads} threads, each tagged with a call id for the simulator's ledger, then
 * prints one line {@code SUMMARY {json}}: what completed, what failed and why, how many attempts
 * the retry template made, and Sluice's JMX figures when the agent is there.
 */
@SpringBootApplication
public class SpringAiApp implements CommandLineRunner {

    private final ChatClient chat;
    private final RetryTemplate retryTemplate;

    @Value("${app.sync-calls:0}")
    int syncCalls;

    @Value("${app.stream-calls:0}")
    int streamCalls;

    @Value("${app.threads:6}")
    int threads;

    @Value("${app.max-tokens:32}")
    int maxTokens;

    /**
     * Before the calls, open this many plain {@code Socket}s and as many {@code SocketChannel}s to
     * the base URL's host and port and close them: connections no HTTP client opened.
     */
    @Value("${app.raw-connections:0}")
    int rawConnections;

    @Value("${spring.ai.openai.base-url:}")
    String baseUrl;

    /** A simulator fault every request forces (x-sim-force), or empty. */
    @Value("${app.force:}")
    String force;

    private final AtomicLong completed = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final AtomicInteger templateAttempts = new AtomicInteger();
    private final AtomicInteger templateFailures = new AtomicInteger();
    private final Map<String, String> notes = new ConcurrentHashMap<>();

    public SpringAiApp(ChatClient.Builder builder, RetryTemplate retryTemplate) {
        this.chat = builder.build();
        this.retryTemplate = retryTemplate;
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
        retryTemplate.registerListener(new RetryListener() {
            @Override
            public <T, E extends Throwable> void onError(
                    RetryContext context, RetryCallback<T, E> callback, Throwable throwable) {
                templateFailures.incrementAndGet();
            }

            @Override
            public <T, E extends Throwable> void onSuccess(
                    RetryContext context, RetryCallback<T, E> callback, T result) {
                // counted below with the failures: every attempt ends one way or the other
            }
        });
        openRawConnections();
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

    private void openRawConnections() throws java.io.IOException {
        java.net.URI uri = java.net.URI.create(baseUrl);
        for (int i = 0; i < rawConnections; i++) {
            try (java.net.Socket socket = new java.net.Socket()) {
                socket.connect(new java.net.InetSocketAddress(uri.getHost(), uri.getPort()), 2_000);
            }
            try (java.nio.channels.SocketChannel channel = java.nio.channels.SocketChannel.open(
                    new java.net.InetSocketAddress(uri.getHost(), uri.getPort()))) {
                channel.isConnected();
            }
        }
    }

    private void call(String id, boolean stream) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-sim-call-id", id);
        if (!force.isEmpty()) {
            headers.put("x-sim-force", force);
        }
        OpenAiChatOptions options = OpenAiChatOptions.builder()
                .maxTokens(maxTokens)
                .httpHeaders(headers)
                .build();
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
        summary.put("templateFailedAttempts", templateFailures.get());
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
