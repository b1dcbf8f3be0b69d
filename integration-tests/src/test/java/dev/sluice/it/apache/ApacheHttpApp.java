package dev.sluice.it.apache;

import dev.sluice.it.harness.AppReport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A service calling an OpenAI chat endpoint with Apache HttpClient directly, no SDK and no
 * Sluice config: {@code threads} callers each make {@code calls} calls, each with its own
 * {@code x-sim-call-id} so the simulator's ledger counts the attempts of each logical call. Then,
 * for a fault named in {@code after}, one call forced to that fault ({@code after-<fault>}), and
 * one more to the same simulator under a host Sluice does not govern
 * ({@code after-ungoverned-<fault>}).
 *
 * <p>Modes: {@code json} (half the callers through a response handler, half through
 * {@code executeOpen} and a close), {@code sse} (streamed, read line by line to {@code [DONE]}),
 * {@code drop} (each response dropped unread and unclosed, then the governor's state is watched
 * until it is idle, then as many normal calls as the pool has connections: they only complete
 * if the dropped bodies gave their connections back).
 *
 * <p>At the end it reports, read from the agent (nothing without it): the Provider beans' calls,
 * attempts and 429s, the Governor's admissions and rejections, and the retry-layer counters.
 *
 * <p>Arguments: client(hc5|hc5-async|hc4) url threads calls mode(json|sse|drop) after(fault or -)
 * [trafficClass: sent as {@code X-Sluice-Class}]
 */
public final class ApacheHttpApp {

    static final String BODY = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":"
            + "\"Say hello to the Apache HttpClient test, briefly.\"}],\"max_tokens\":32%s}";
    static final String STREAM = ",\"stream\":true,\"stream_options\":{\"include_usage\":true}";

    /** One library's way of making a call. */
    interface Client {
        /** Sends one call, reads (or drops) its answer and returns a short outcome. */
        String call(String callId, String body, boolean stream, int thread, String force) throws Exception;

        /** Sends one call and drops its response unread and unclosed. */
        void callAndDrop(String callId, String body) throws Exception;

        /** Whether the body of this thread's last call carried Sluice's {@code sluice} object. */
        default boolean lastErrorBodyNamesSluice() {
            String body = LAST_BODY.get();
            return body != null && body.contains("\"sluice\"");
        }

        /** Connections the client keeps for one route. */
        int connectionsPerRoute();
    }

    /** Request headers every call carries ({@code X-Sluice-Class} when a traffic class is given). */
    static final Map<String, String> EXTRA_HEADERS = new java.util.LinkedHashMap<>();

    /** The body text of this thread's last call, as the application read it. */
    static final ThreadLocal<String> LAST_BODY = new ThreadLocal<>();

    /** Calls a client saw counted as governed on its own thread (what a retry loop around it consults). */
    static final java.util.concurrent.atomic.AtomicLong GOVERNED_ON_CALLER_THREAD =
            new java.util.concurrent.atomic.AtomicLong();

    private ApacheHttpApp() {}

    /**
     * Sluice's count of the governed calls started on this thread ({@code RetryLayers}, on the boot
     * class path with the agent), or -1 without the agent.
     */
    static long governedOnThisThread() {
        try {
            Class<?> layers = Class.forName("dev.sluice.bootstrap.RetryLayers", true, null);
            return (Long) layers.getMethod("governedCountOnThisThread").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            return -1;
        }
    }

    public static void main(String[] args) throws Exception {
        String library = args[0];
        String url = args[1];
        int threads = Integer.parseInt(args[2]);
        int calls = Integer.parseInt(args[3]);
        String mode = args[4];
        String after = args[5];
        if (args.length > 6) {
            EXTRA_HEADERS.put("X-Sluice-Class", args[6]);
        }
        Client client = client(library, url);
        AppReport report = new AppReport();
        boolean stream = mode.equals("sse");
        String body = String.format(BODY, stream ? STREAM : "");
        if (mode.equals("drop")) {
            drop(client, report, calls, body);
        } else {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            for (int t = 0; t < threads; t++) {
                int thread = t;
                pool.submit(() -> {
                    for (int i = 0; i < calls; i++) {
                        String id = "c" + thread + "-" + i;
                        report.call(() -> {
                            String outcome = client.call(id, body, stream, thread, null);
                            report.count(outcome, 1);
                            if (outcome.startsWith("status:429:") && !outcome.endsWith(":provider")) {
                                report.count("localRejectionBody:" + client.lastErrorBodyNamesSluice(), 1);
                            }
                            if (!outcome.equals("status:200")) {
                                throw new IllegalStateException(outcome);
                            }
                        });
                    }
                });
            }
            pool.shutdown();
            pool.awaitTermination(5, TimeUnit.MINUTES);
        }
        if (!after.equals("-")) {
            report.count("after:" + after + ":" + client.call("after-" + after, body, stream, 0, after), 1);
            // the same fault on a host Sluice does not govern: HttpClient keeps its own retries
            Client ungoverned = client(library, url.replaceFirst("//[^:/]+", "//127.0.0.1"));
            report.count(
                    "ungoverned:" + after + ":" + ungoverned.call("after-ungoverned-" + after, body, stream, 0, after),
                    1);
        }
        if (GOVERNED_ON_CALLER_THREAD.get() > 0) {
            report.count("governedOnCallerThread", GOVERNED_ON_CALLER_THREAD.get());
        }
        readAgent(report);
        report.print();
        System.exit(0);
    }

    static Client client(String library, String url) throws Exception {
        switch (library) {
            case "hc5":
                return new Hc5Classic(url);
            case "hc5-spring":
                return new Hc5Spring(url);
            case "hc5-async":
                return new Hc5Async(url);
            case "hc4":
                return new Hc4Classic(url);
            default:
                throw new IllegalArgumentException(library);
        }
    }

    /**
     * Drops {@code calls} responses unread; waits (collecting garbage) until the governor holds
     * nothing; then makes twice as many normal calls as the pool has connections per route.
     */
    private static void drop(Client client, AppReport report, int calls, String body) throws Exception {
        for (int i = 0; i < calls; i++) {
            String id = "drop-" + i;
            report.call(() -> client.callAndDrop(id, body));
        }
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long inFlight = -1;
        long reserved = -1;
        long start = System.nanoTime();
        while (System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(100); // the Cleaner runs on its own thread
            if (!jmx.isRegistered(governor)) {
                continue;
            }
            inFlight = ((Number) jmx.getAttribute(governor, "InFlight")).longValue();
            reserved = 0;
            for (ObjectName limit : jmx.queryNames(new ObjectName("dev.sluice:type=Limit,*"), null)) {
                reserved += ((Number) jmx.getAttribute(limit, "Reserved")).longValue();
            }
            if (inFlight == 0 && reserved == 0) {
                break;
            }
        }
        report.count("drop:inFlight", inFlight);
        report.count("drop:reserved", reserved);
        report.count("drop:millisToIdle", (System.nanoTime() - start) / 1_000_000);
        for (int i = 0; i < 2 * client.connectionsPerRoute(); i++) {
            String id = "after-drop-" + i;
            report.call(() -> report.count("afterDrop:" + client.call(id, body, false, 0, null), 1));
        }
    }

    /** SSE: counts the events up to {@code [DONE]}; the outcome is the status, or how the stream broke. */
    static String readStream(java.io.InputStream in) throws java.io.IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        boolean done = false;
        boolean usage = false;
        for (String line; (line = reader.readLine()) != null; ) {
            if (line.startsWith("data:")) {
                if (line.contains("[DONE]")) {
                    done = true;
                } else if (line.contains("\"usage\":{")) {
                    usage = true;
                }
            }
        }
        return done && usage ? "status:200" : "stream:broken";
    }

    /** The agent's figures: Provider and Governor beans, and the retry-layer counters of the bridge. */
    @SuppressWarnings("unchecked")
    private static void readAgent(AppReport report) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        if (!jmx.isRegistered(governor)) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!jmx.isRegistered(governor) && System.nanoTime() - end < 0) {
                Thread.sleep(50);
            }
        }
        if (jmx.isRegistered(governor)) {
            // a read brings the set of beans up to date, at most once a second: a run shorter than
            // that after the agent registered its beans may not see its Provider bean at first
            ObjectName providers = new ObjectName("dev.sluice:type=Provider,*");
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            jmx.getAttribute(governor, "InFlight");
            while (jmx.queryNames(providers, null).isEmpty() && System.nanoTime() - end < 0) {
                Thread.sleep(100);
                jmx.getAttribute(governor, "InFlight");
            }
            report.count("jmx:admitted", ((Number) jmx.getAttribute(governor, "Admitted")).longValue());
            report.count("jmx:rejected", ((Number) jmx.getAttribute(governor, "Rejected")).longValue());
            for (ObjectName provider : jmx.queryNames(providers, null)) {
                report.count("jmx:calls", ((Number) jmx.getAttribute(provider, "Calls")).longValue());
                report.count("jmx:attempts", ((Number) jmx.getAttribute(provider, "Attempts")).longValue());
                report.count("jmx:429", ((Number) jmx.getAttribute(provider, "Status429")).longValue());
                report.count(
                        "jmx:localRejections", ((Number) jmx.getAttribute(provider, "LocalRejections")).longValue());
            }
        }
        try {
            Class<?> layers = Class.forName("dev.sluice.bootstrap.RetryLayers");
            Method snapshot = layers.getMethod("snapshot");
            Map<String, Map<String, Long>> all = (Map<String, Map<String, Long>>) snapshot.invoke(null);
            all.forEach((layer, counts) -> counts.forEach((k, v) -> report.count("layer:" + layer + ":" + k, v)));
        } catch (ReflectiveOperationException | LinkageError noAgent) {
            // no agent: nothing to report
        }
    }

    /** A 429 the agent answered carries {@code x-sluice-decision}; the provider's does not. */
    static String outcome(int status, String decision) {
        if (status != 429) {
            return "status:" + status;
        }
        return "status:429:" + (decision == null ? "provider" : decision);
    }
}
