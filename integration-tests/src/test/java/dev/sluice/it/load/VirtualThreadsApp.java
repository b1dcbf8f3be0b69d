package dev.sluice.it.load;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Thousands of virtual threads, each making one chat completion at the same moment, through the
 * agent (JDK 21+; compiled at 17, so the executor is looked up reflectively). Prints one
 * {@code SUMMARY} line: what the calls ended with, the wall time, the heap used after a GC, and
 * what the governor still held afterwards (JMX, in-process). On its deadline it prints a summary
 * of a thread dump (virtual threads included) instead of waiting forever.
 *
 * <p>Arguments: {@code url threads deadlineSeconds jdk|openai|anthropic [requestTimeoutSeconds]}
 * ({@code anthropic}: the JDK client to Anthropic's Messages API; the timeout, for {@code jdk} only,
 * is each request's own).
 */
public final class VirtualThreadsApp {

    private static final String BODY =
            "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]," + "\"max_tokens\":16}";

    public static void main(String[] args) throws Throwable {
        String url = args[0];
        int threads = Integer.parseInt(args[1]);
        long deadlineSeconds = Long.parseLong(args[2]);
        String client = args[3];
        Duration requestTimeout = args.length > 4 ? Duration.ofSeconds(Long.parseLong(args[4])) : null;

        ExecutorService executor = (ExecutorService) MethodHandles.publicLookup()
                .findStatic(
                        Executors.class,
                        "newVirtualThreadPerTaskExecutor",
                        MethodType.methodType(ExecutorService.class))
                .invoke();
        Call call = client.equals("openai")
                ? openAi(url)
                : client.equals("anthropic") ? anthropic(url) : jdk(url, requestTimeout);
        Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            executor.execute(() -> {
                String outcome;
                try {
                    start.await();
                    outcome = call.make();
                } catch (Throwable t) {
                    outcome = "threw " + t.getClass().getName();
                }
                outcomes.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
                done.countDown();
            });
        }
        long started = System.nanoTime();
        List<String> timeline = Collections.synchronizedList(new ArrayList<>());
        Thread sampler = new Thread(() -> sampleGovernor(started, timeline), "load-sampler");
        sampler.setDaemon(true);
        sampler.start();
        start.countDown();
        boolean finished = done.await(deadlineSeconds, TimeUnit.SECONDS);
        long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
        sampler.interrupt();

        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("threads", threads);
        summary.put("finished", finished);
        summary.put("unfinished", done.getCount());
        summary.put("elapsedMillis", elapsedMillis);
        summary.put(
                "outcomes",
                new TreeMap<>(outcomes.entrySet().stream()
                        .collect(Collectors.toMap(
                                Map.Entry::getKey, e -> e.getValue().get()))));
        if (!finished) {
            summary.put("threadDump", threadDumpSummary());
        }
        summary.putAll(governorState(finished));
        synchronized (timeline) {
            summary.put("timeline", new ArrayList<>(timeline));
        }
        System.gc();
        summary.put(
                "heapUsedAfterGcMb",
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024));
        System.out.println("SUMMARY " + json(summary));
        System.out.flush();
        Runtime.getRuntime().halt(0); // parked virtual threads of a deadlocked run must not keep the JVM
    }

    interface Call {
        String make() throws Exception;
    }

    /** The JDK client, each request with {@code timeout} (none when null), as a batch job sets one. */
    private static Call jdk(String url, Duration timeout) {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return () -> {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/v1/chat/completions"))
                    .header("authorization", "Bearer sk-load-test")
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(BODY));
            if (timeout != null) {
                b.timeout(timeout);
            }
            HttpRequest request = b.build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return outcome(response.statusCode(), response.body());
        };
    }

    private static final String ANTHROPIC_BODY =
            "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    /** Anthropic's Messages API through the JDK client: an answer that does not say when the provider counted the call. */
    private static Call anthropic(String url) {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return () -> {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/messages"))
                    .header("x-api-key", "sk-ant-load-test")
                    .header("anthropic-version", "2023-06-01")
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(ANTHROPIC_BODY))
                    .build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return outcome(response.statusCode(), response.body());
        };
    }

    private static Call openAi(String url) {
        OpenAIClient client = OpenAIOkHttpClient.builder()
                .baseUrl(url + "/v1")
                .apiKey("sk-load-test")
                .build();
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                .model(ChatModel.GPT_4O_MINI)
                .addUserMessage("hi")
                .maxCompletionTokens(16)
                .build();
        return () -> {
            try {
                client.chat().completions().create(params);
                return "200";
            } catch (OpenAIServiceException e) {
                return outcome(e.statusCode(), String.valueOf(e.body()));
            }
        };
    }

    private static final java.util.regex.Pattern DECISION =
            java.util.regex.Pattern.compile("\"gateway_decision\"\\s*:\\s*\"([a-z_]+)\"");

    /**
     * The status, and for a 429 who refused: {@code 429 local} when Sluice answered without
     * sending (its decision {@code rejected_locally}, {@code queue_deadline_exceeded},
     * {@code queue_full}...), {@code 429 provider} when the provider's refusal was handed back.
     */
    private static String outcome(int status, String body) {
        if (status != 429) {
            return String.valueOf(status);
        }
        java.util.regex.Matcher m = DECISION.matcher(body == null ? "" : body);
        if (!m.find()) {
            return "429 provider";
        }
        String decision = m.group(1);
        return decision.equals("admitted_then_provider_rejected") || decision.equals("retry_budget_exhausted")
                ? "429 provider (" + decision + ")"
                : "429 local";
    }

    /**
     * Every 500 ms while the calls run: waiting and in flight (Governor bean), and each learned
     * limit's room against what the provider last said remained (Limit beans), so that a stall
     * shows whether Sluice or the provider had no room. Printed by the test when it fails.
     */
    private static void sampleGovernor(long started, List<String> timeline) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName governor = new ObjectName("dev.sluice:type=Governor");
            ObjectName limits = new ObjectName("dev.sluice:type=Limit,*");
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(500);
                if (!server.isRegistered(governor)) {
                    continue;
                }
                StringBuilder sample = new StringBuilder()
                        .append((System.nanoTime() - started) / 1_000_000)
                        .append(" ms: waiting ")
                        .append(server.getAttribute(governor, "Waiting"))
                        .append(", in flight ")
                        .append(server.getAttribute(governor, "InFlight"));
                for (ObjectName limit : server.queryNames(limits, null)) {
                    sample.append("; ")
                            .append(server.getAttribute(limit, "Id"))
                            .append(" room ")
                            .append(server.getAttribute(limit, "Available"))
                            .append(", provider said ")
                            .append(server.getAttribute(limit, "ProviderRemaining"));
                }
                timeline.add(sample.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            timeline.add("sampling stopped: " + e);
        }
    }

    /** In flight and waiting (Governor bean) and reserved (Limit beans) once settled, polled up to 10 s. */
    private static Map<String, Object> governorState(boolean finished) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(finished ? 10 : 1);
        Map<String, Object> state = new LinkedHashMap<>();
        while (true) {
            state.clear();
            if (server.isRegistered(governor)) {
                state.put("inFlight", server.getAttribute(governor, "InFlight"));
                state.put("waiting", server.getAttribute(governor, "Waiting"));
                state.put("admitted", server.getAttribute(governor, "Admitted"));
                state.put("rejectionsByReason", asMap(server.getAttribute(governor, "RejectionsByReason")));
                long reserved = 0;
                long limitsInFlight = 0;
                for (ObjectName limit : server.queryNames(new ObjectName("dev.sluice:type=Limit,*"), null)) {
                    reserved += ((Number) server.getAttribute(limit, "Reserved")).longValue();
                    limitsInFlight += ((Number) server.getAttribute(limit, "InFlight")).longValue();
                }
                state.put("reserved", reserved);
                state.put("limitsInFlight", limitsInFlight);
                boolean idle = ((Number) state.get("inFlight")).intValue() == 0
                        && ((Number) state.get("waiting")).intValue() == 0
                        && reserved == 0
                        && limitsInFlight == 0;
                if (idle || System.nanoTime() > end) {
                    return state;
                }
            } else if (System.nanoTime() > end) {
                state.put("jmx", String.valueOf(System.getProperty("dev.sluice.agent.jmx")));
                return state;
            }
            Thread.sleep(50);
        }
    }

    /** An MXBean's {@code Map<String, Long>} attribute, which JMX hands over as tabular data. */
    private static Map<String, Object> asMap(Object tabular) {
        Map<String, Object> out = new TreeMap<>();
        if (tabular instanceof javax.management.openmbean.TabularData) {
            for (Object row : ((javax.management.openmbean.TabularData) tabular).values()) {
                javax.management.openmbean.CompositeData entry = (javax.management.openmbean.CompositeData) row;
                out.put(String.valueOf(entry.get("key")), entry.get("value"));
            }
        }
        return out;
    }

    /** The most common top frames of all threads, virtual ones included (HotSpot's thread dump, JDK 21+). */
    private static Map<String, Object> threadDumpSummary() {
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            Path file = Files.createTempDirectory("sluice-dump").resolve("threads.txt");
            Object bean =
                    ManagementFactory.getPlatformMXBean(Class.forName("com.sun.management.HotSpotDiagnosticMXBean")
                            .asSubclass(java.lang.management.PlatformManagedObject.class));
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object format = Enum.valueOf(
                    (Class) Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat"), "TEXT_PLAIN");
            bean.getClass()
                    .getMethod("dumpThreads", String.class, format.getClass())
                    .invoke(bean, file.toString(), format);
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            Map<String, Long> topFrames = new TreeMap<>();
            boolean header = false;
            int threads = 0;
            for (String line : lines) {
                if (line.startsWith("#")) {
                    header = true;
                    threads++;
                } else if (header && line.trim().startsWith("java.")
                        || header && line.trim().contains("(")) {
                    topFrames.merge(line.trim(), 1L, Long::sum);
                    header = false;
                }
            }
            out.put("threads", threads);
            List<Map.Entry<String, Long>> top = new ArrayList<>(topFrames.entrySet());
            top.sort(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()));
            Map<String, Long> first = new LinkedHashMap<>();
            top.stream().limit(12).forEach(e -> first.put(e.getKey(), e.getValue()));
            out.put("topFrames", first);
        } catch (Throwable t) {
            out.put("error", t.toString());
        }
        return out;
    }

    /** Enough JSON for the summary: maps, strings, numbers, booleans. */
    private static String json(Object value) {
        if (value instanceof Map) {
            return ((Map<?, ?>) value)
                    .entrySet().stream()
                            .map(e -> json(String.valueOf(e.getKey())) + ":" + json(e.getValue()))
                            .collect(Collectors.joining(",", "{", "}"));
        }
        if (value instanceof List) {
            return ((List<?>) value).stream().map(VirtualThreadsApp::json).collect(Collectors.joining(",", "[", "]"));
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return "\"" + String.valueOf(value).replace("\\", "\\\\").replace("\"", "'") + "\"";
    }
}
