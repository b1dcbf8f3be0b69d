package dev.sluice.it.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a test application counts while it runs its workload, printed at the end as one line
 * {@code SUMMARY {json}}: calls, completions, failures by exception type and by a short reason the
 * application extracts (e.g. the Sluice decision of a local rejection), latencies.
 */
public final class AppReport {

    public static final String PREFIX = "SUMMARY ";

    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> latenciesMillis = new ConcurrentLinkedQueue<>();
    private final long startedNanos = System.nanoTime();
    private final Map<String, AppReport> groups = new ConcurrentHashMap<>();
    private final Map<String, String> notes = new ConcurrentHashMap<>();

    /** Times one logical call; the outcome is completion, or the exception it threw. */
    public void call(ThrowingRunnable body) {
        long start = begin();
        try {
            body.run();
            succeeded(start);
        } catch (Throwable t) {
            failed(start, t);
        }
    }

    /** Starts timing one logical call whose end is reported later (asynchronous calls). */
    public long begin() {
        calls.incrementAndGet();
        return System.nanoTime();
    }

    /** The call {@link #begin() begun} then completed. */
    public void succeeded(long begunNanos) {
        completed.incrementAndGet();
        latenciesMillis.add((System.nanoTime() - begunNanos) / 1_000_000);
    }

    /** The call {@link #begin() begun} then failed with this exception. */
    public void failed(long begunNanos, Throwable t) {
        failure(t.getClass().getSimpleName());
        notes.putIfAbsent("firstFailure:" + t.getClass().getSimpleName(), causeChain(t));
        latenciesMillis.add((System.nanoTime() - begunNanos) / 1_000_000);
    }

    /** Causes written at most: a chain that loops back on itself must not hang the report. */
    private static final int MAX_CAUSES = 16;

    /** Each exception of the chain with its message: what a failing test needs to say why. */
    private static String causeChain(Throwable t) {
        StringBuilder chain = new StringBuilder();
        int links = 0;
        for (Throwable c = t; c != null && links++ < MAX_CAUSES; c = c.getCause() == c ? null : c.getCause()) {
            if (chain.length() > 0) {
                chain.append(" <- ");
            }
            chain.append(c.getClass().getName()).append(": ").append(c.getMessage());
        }
        return chain.toString();
    }

    public void failure(String kind) {
        failures.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    }

    /** Any other figure the application wants to report. */
    public void count(String name, long delta) {
        counters.computeIfAbsent(name, k -> new AtomicLong()).addAndGet(delta);
    }

    /** A fact the application read (an error's field, a header), printed under {@code notes}. */
    public void note(String name, String value) {
        notes.put(name, String.valueOf(value));
    }

    /**
     * The report of one group of calls (a tenant, a traffic class), printed nested under
     * {@code groups} in this report's summary.
     */
    public AppReport group(String name) {
        return groups.computeIfAbsent(name, k -> new AppReport());
    }

    /**
     * Counts what each retry layer around Sluice did, as the bridge counted it, under
     * {@code layer:<layer>:passed} and {@code layer:<layer>:declined}; nothing without the agent.
     */
    @SuppressWarnings("unchecked")
    public void countRetryLayers() {
        try {
            Class<?> layers = Class.forName("dev.sluice.bootstrap.RetryLayers");
            java.lang.reflect.Method snapshot = layers.getMethod("snapshot");
            Map<String, Map<String, Long>> all = (Map<String, Map<String, Long>>) snapshot.invoke(null);
            all.forEach((layer, counts) -> counts.forEach((k, v) -> count("layer:" + layer + ":" + k, v)));
        } catch (ReflectiveOperationException | LinkageError noAgent) {
            // no agent: nothing to report
        }
    }

    public void print() {
        System.out.println(PREFIX + toJson());
        System.out.flush();
    }

    private ObjectNode toJson() {
        ObjectNode n = new ObjectMapper().createObjectNode();
        n.put("calls", calls.get());
        n.put("completed", completed.get());
        ObjectNode f = n.putObject("failures");
        new TreeMap<>(failures).forEach((k, v) -> f.put(k, v.get()));
        ObjectNode c = n.putObject("counters");
        new TreeMap<>(counters).forEach((k, v) -> c.put(k, v.get()));
        List<Long> sorted = new ArrayList<>(latenciesMillis);
        Collections.sort(sorted);
        n.put("p50Millis", percentile(sorted, 0.50));
        n.put("p95Millis", percentile(sorted, 0.95));
        n.put("p99Millis", percentile(sorted, 0.99));
        n.put("maxMillis", sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1));
        n.put("elapsedMillis", (System.nanoTime() - startedNanos) / 1_000_000);
        if (!notes.isEmpty()) {
            ObjectNode o = n.putObject("notes");
            new TreeMap<>(notes).forEach(o::put);
        }
        if (!groups.isEmpty()) {
            ObjectNode g = n.putObject("groups");
            new TreeMap<>(groups).forEach((k, v) -> g.set(k, v.toJson()));
        }
        return n;
    }

    private static long percentile(List<Long> sorted, double q) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
    }

    /** A call body that may throw anything. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }
}
