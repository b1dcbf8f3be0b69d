package dev.sluice.benchmarks.overhead;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * The application side of the per-call overhead harness ({@link CallOverhead} forks it twice, with
 * and without the agent). It knows nothing of Sluice: it calls an OpenAI-shaped endpoint and
 * prints one {@code SUMMARY {json}} line.
 *
 * <p>Modes (first argument), then {@code url}:
 *
 * <ul>
 *   <li>{@code load url client threads warmupSeconds measureSeconds}: {@code threads} callers in a
 *       closed loop, each call {@code client} = {@code jdk} (JDK HttpClient, sync), {@code openai}
 *       (openai-java, sync) or {@code openai-stream} (openai-java, streaming, every chunk read);
 *       after the warm-up (the seconds given, then on until the JIT compilers are nearly idle,
 *       see {@link #warmUntilJitSettles}), each call's latency goes into the caller's HdrHistogram, and the
 *       callers' CPU time and allocated bytes ({@code com.sun.management.ThreadMXBean}) plus the
 *       whole process's CPU time are taken at the start and the end of the measured part.
 *   <li>{@code windows url client threads warmupSeconds}: the same callers and calls, measured in
 *       windows that {@link CallOverhead} asks for on standard input, so that two JVMs (without and
 *       with the agent) can take turns on the machine: after the warm-up (with a few pauses, so
 *       the callers' pause is compiled before anything is measured) it prints {@code READY}, then
 *       for each line {@code measure <millis>} resumes the callers, measures, pauses them and
 *       prints {@code WINDOW {json}}; on {@code quit} its SUMMARY holds every window's calls
 *       pooled.
 *   <li>{@code paired url ungovernedUrl client threads warmupSeconds windows windowMillis}: each
 *       caller takes two calls in turns, A B B A: to {@code url} (a provider's host, which the
 *       agent governs) and to {@code ungovernedUrl} (the same server under a host the agent does
 *       not know, which it lets pass after one look at the host). Both meet the same machine, the
 *       same JIT state and the same collections, so the difference of their percentiles is what
 *       governing a call adds, free of the JVM-to-JVM spread that decides a p99 on two cores; run
 *       without the agent, the same difference is the method's own error. After the warm-up (until
 *       the JIT is idle) it measures {@code windows} back-to-back windows; its SUMMARY holds both
 *       calls' pooled percentiles, each window's, and the admissions Sluice counted meanwhile
 *       (which must match the governed calls only).
 *   <li>{@code pages url ungovernedUrl client warmupSeconds trials pauseMillis}: the two calls of
 *       {@code paired}, warmed up by one caller; then {@code trials} single calls in turns, each
 *       after a pause, counting the distinct pages of memory each touches ({@link PagesTouched}).
 *   <li>{@code vt url calls}: JDK 21+: after a warm-up of at least 2,000 calls on 8 platform
 *       threads, until the JIT compilers are idle,
 *       {@code calls} virtual threads each make one JDK HttpClient call at the same moment; the wall
 *       time from their start to the last end.
 *   <li>{@code tenants url tenants keys}: one JDK HttpClient call per tenant ({@code X-Sluice-Tenant:
 *       t-<i>}, API key {@code sk-bench-<i mod keys>}), 8 threads; then the heap used after a full
 *       GC and the threads whose names start with {@code sluice}.
 * </ul>
 */
public final class CallLoadApp {

    /** ~8 KB of prompt. */
    public static final String PROMPT = prompt(8 * 1024);
    /** Answer tokens: the simulator's words average ~5.7 characters with their space, ~2 KB. */
    static final int ANSWER_TOKENS = 360;
    /** The chat request the JDK client sends (and {@code GovernedCallBenchmark} offers Sluice). */
    public static final String CHAT_REQUEST = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + ANSWER_TOKENS
            + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + PROMPT + "\"}]}";

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Throwable {
        String mode = args[0];
        String url = args[1];
        Map<String, Object> summary;
        switch (mode) {
            case "load":
                summary =
                        load(url, args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]), Long.parseLong(args[5]));
                break;
            case "windows":
                summary = windows(url, args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
                break;
            case "paired":
                summary = paired(
                        url,
                        args[2],
                        args[3],
                        Integer.parseInt(args[4]),
                        Long.parseLong(args[5]),
                        Integer.parseInt(args[6]),
                        Long.parseLong(args[7]));
                break;
            case "pages":
                summary = pages(
                        url,
                        args[2],
                        args[3],
                        Long.parseLong(args[4]),
                        Integer.parseInt(args[5]),
                        Long.parseLong(args[6]));
                break;
            case "vt":
                summary = virtualThreads(url, Integer.parseInt(args[2]));
                break;
            case "tenants":
                summary = tenants(url, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
                break;
            default:
                throw new IllegalArgumentException(mode);
        }
        summary.put("admittedBySluice", admitted());
        summary.put("sluiceRetriesAndFailures", retriesAndFailures());
        summary.put("sluiceThreads", sluiceThreads());
        System.out.println("SUMMARY " + json(summary));
        System.out.flush();
        System.exit(0); // (not halt: a flight recording started on the command line is written by a shutdown hook)
    }

    interface Call {
        /** Makes one call; returns the characters of answer text received. */
        int make() throws Exception;
    }

    static Call call(String url, String client, String tenant, String apiKey) {
        switch (client) {
            case "jdk":
                return jdk(url, tenant, apiKey);
            case "openai":
            case "openai-stream":
                OpenAIClient sdk = OpenAIOkHttpClient.builder()
                        .baseUrl(url + "/v1")
                        .apiKey(apiKey)
                        .maxRetries(0)
                        .okHttpClient(new okhttp3.OkHttpClient.Builder()
                                .socketFactory(new NoDelaySockets())
                                .build())
                        .build();
                ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                        .model(ChatModel.GPT_4O_MINI)
                        .addUserMessage(PROMPT)
                        .maxCompletionTokens(ANSWER_TOKENS)
                        .build();
                if (client.equals("openai")) {
                    return () -> {
                        ChatCompletion c = sdk.chat().completions().create(params);
                        return c.choices().get(0).message().content().orElse("").length();
                    };
                }
                return () -> {
                    int[] chars = {0};
                    try (StreamResponse<ChatCompletionChunk> s =
                            sdk.chat().completions().createStreaming(params)) {
                        s.stream().forEach(chunk -> {
                            for (ChatCompletionChunk.Choice choice : chunk.choices()) {
                                chars[0] += choice.delta().content().orElse("").length();
                            }
                        });
                    }
                    return chars[0];
                };
            default:
                throw new IllegalArgumentException(client);
        }
    }

    private static Call jdk(String url, String tenant, String apiKey) {
        return jdk(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), url, tenant, apiKey);
    }

    private static Call jdk(HttpClient client, String url, String tenant, String apiKey) {
        String body = CHAT_REQUEST;
        URI uri = URI.create(url + "/v1/chat/completions");
        return () -> {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                    .header("authorization", "Bearer " + apiKey)
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (tenant != null) {
                b.header("X-Sluice-Tenant", tenant);
            }
            HttpResponse<String> response = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("status " + response.statusCode() + ": " + response.body());
            }
            return response.body().length();
        };
    }

    /** The closed-loop load: see the class comment. */
    static Map<String, Object> load(String url, String client, int threads, long warmupSeconds, long measureSeconds)
            throws Exception {
        Call call = call(url, client, null, "sk-bench");
        List<Caller> callers = startCallers(call, threads);
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        long warmedMillis = TimeUnit.SECONDS.toMillis(warmupSeconds) + warmUntilJitSettles();

        long jitBefore = jitCpuMillis();
        long[] processBefore = processCpuAndAlloc();
        long wallBefore = System.nanoTime();
        for (Caller c : callers) {
            c.startMeasuring();
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(measureSeconds));
        Recorded recorded = Recorded.stopMeasuring(callers);
        long wall = System.nanoTime() - wallBefore;
        long[] processAfter = processCpuAndAlloc();
        long jitWhileMeasuring = jitCpuMillis() - jitBefore;
        stopCallers(callers);

        long calls = recorded.latencies.getTotalCount();
        long chars = 0;
        long failedCalls = 0;
        String firstError = null;
        for (Caller c : callers) {
            chars = Math.max(chars, c.lastChars);
            failedCalls += c.failed;
            if (firstError == null) {
                firstError = c.error;
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("client", client);
        out.put("threads", threads);
        out.put("calls", calls);
        out.put("callsPerSecond", calls * 1e9 / wall);
        out.put("answerChars", chars);
        recorded.putFigures(out);
        out.put("meanMicros", recorded.latencies.getMean() / 1e3);
        out.put("maxMicros", recorded.latencies.getMaxValue() / 1e3);
        out.put("processCpuMicrosPerCall", calls == 0 ? 0 : (processAfter[0] - processBefore[0]) / 1e3 / calls);
        out.put("processAllocBytesPerCall", calls == 0 ? 0 : (processAfter[1] - processBefore[1]) / calls);
        out.put("errors", failedCalls);
        if (firstError != null) {
            out.put("firstError", firstError);
        }
        out.put("warmupMillis", warmedMillis);
        out.put("jitCpuMillisWhileMeasuring", jitWhileMeasuring);
        return out;
    }

    /** The measure in windows taken in turns with another JVM: see the class comment. */
    static Map<String, Object> windows(String url, String client, int threads, long warmupSeconds) throws Exception {
        Call call = call(url, client, null, "sk-bench");
        List<Caller> callers = startCallers(call, threads);
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        for (int i = 0; i < WARM_UP_PAUSES; i++) { // the pause's branch compiled now, not in a window
            pauseCallers();
            Thread.sleep(200);
            resumeCallers();
            Thread.sleep(1_000);
        }
        long warmedMillis = TimeUnit.SECONDS.toMillis(warmupSeconds) + warmUntilJitSettles();
        pauseCallers();
        System.out.println("READY");
        System.out.flush();

        Histogram pooled = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        int windows = 0;
        java.io.BufferedReader commands =
                new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = commands.readLine()) != null && line.startsWith("measure "); ) {
            long millis = Long.parseLong(line.substring("measure ".length()).trim());
            Map<String, Object> window = measureWindow(callers, millis, pooled);
            windows++;
            System.out.println("WINDOW " + json(window));
            System.out.flush();
        }
        stopCallers(callers);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("client", client);
        out.put("threads", threads);
        out.put("windows", windows);
        out.put("calls", pooled.getTotalCount());
        putPercentiles(pooled, out);
        out.put("errors", callers.stream().mapToLong(c -> c.failed).sum());
        out.put("warmupMillis", warmedMillis);
        return out;
    }

    /**
     * The measure within one JVM: each caller takes a governed call and an ungoverned one in turns
     * (A B B A), so both meet the same machine, the same JIT state and the same collections; see
     * the class comment.
     */
    static Map<String, Object> paired(
            String governedUrl,
            String ungovernedUrl,
            String client,
            int threads,
            long warmupSeconds,
            int windows,
            long windowMillis)
            throws Exception {
        running = true;
        List<Caller> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Caller c = new Caller(
                    call(governedUrl, client, null, "sk-bench"), call(ungovernedUrl, client, null, "sk-bench"));
            c.thread = callerThread(c);
            c.thread.start();
            callers.add(c);
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        long warmedMillis = TimeUnit.SECONDS.toMillis(warmupSeconds) + warmUntilJitSettles();
        throwIfOneFailed(callers);

        Histogram[] pooled = {newHistogram(), newHistogram()};
        List<String> perWindow = new ArrayList<>();
        for (Caller c : callers) {
            for (SingleWriterRecorder r : c.recorders) {
                r.getIntervalHistogram(); // the warm-up's calls dropped
            }
        }
        long admittedBefore = admitted();
        long[] madeBefore = madeByKind(callers);
        long[] gcBefore = gcCountAndMillis();
        long jitBefore = jitCpuMillis();
        long[][] spentBefore = spentByKind(callers);
        for (int w = 0; w < windows; w++) {
            Thread.sleep(windowMillis);
            Histogram[] window = {newHistogram(), newHistogram()};
            for (Caller c : callers) {
                for (int k = 0; k < 2; k++) {
                    window[k].add(c.recorders[k].getIntervalHistogram());
                }
            }
            for (int k = 0; k < 2; k++) {
                pooled[k].add(window[k]);
            }
            perWindow.add(String.format(
                    java.util.Locale.ROOT,
                    "%.1f/%.1f/%.1f/%.1f/%.1f/%.1f",
                    window[0].getValueAtPercentile(50) / 1e3,
                    window[0].getValueAtPercentile(99) / 1e3,
                    window[0].getValueAtPercentile(99.9) / 1e3,
                    window[1].getValueAtPercentile(50) / 1e3,
                    window[1].getValueAtPercentile(99) / 1e3,
                    window[1].getValueAtPercentile(99.9) / 1e3));
        }
        long[] madeAfter = madeByKind(callers);
        long[][] spentAfter = spentByKind(callers);
        long admittedAfter = admitted();
        long[] gcAfter = gcCountAndMillis();
        long jitWhileMeasuring = jitCpuMillis() - jitBefore;
        stopCallers(callers);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("client", client);
        out.put("threads", threads);
        out.put("windows", windows);
        out.put("governedCalls", pooled[0].getTotalCount());
        out.put("ungovernedCalls", pooled[1].getTotalCount());
        out.put("governedCallsMade", madeAfter[0] - madeBefore[0]);
        out.put("ungovernedCallsMade", madeAfter[1] - madeBefore[1]);
        out.put("admittedWhileMeasuring", admittedBefore < 0 ? -1 : admittedAfter - admittedBefore);
        out.put("governedP50Micros", pooled[0].getValueAtPercentile(50) / 1e3);
        out.put("governedP99Micros", pooled[0].getValueAtPercentile(99) / 1e3);
        out.put("governedP999Micros", pooled[0].getValueAtPercentile(99.9) / 1e3);
        out.put("ungovernedP50Micros", pooled[1].getValueAtPercentile(50) / 1e3);
        out.put("ungovernedP99Micros", pooled[1].getValueAtPercentile(99) / 1e3);
        out.put("ungovernedP999Micros", pooled[1].getValueAtPercentile(99.9) / 1e3);
        for (int k = 0; k < 2; k++) {
            long made = k == 0 ? madeAfter[0] - madeBefore[0] : madeAfter[1] - madeBefore[1];
            String kind = k == 0 ? "governed" : "ungoverned";
            out.put(kind + "CallerCpuMicros", made == 0 ? 0 : (spentAfter[0][k] - spentBefore[0][k]) / 1e3 / made);
            out.put(kind + "CallerBytes", made == 0 ? 0 : (spentAfter[1][k] - spentBefore[1][k]) / made);
        }
        // where between p50 and p99.9 the two calls' latencies part: governed/ungoverned µs at each percentile
        StringBuilder curve = new StringBuilder();
        for (double p : new double[] {50, 75, 90, 95, 97, 98, 99, 99.5, 99.9}) {
            curve.append(curve.length() == 0 ? "" : ";")
                    .append(String.format(
                            java.util.Locale.ROOT,
                            "p%s %.0f/%.0f",
                            p % 1 == 0 ? String.valueOf((int) p) : String.valueOf(p),
                            pooled[0].getValueAtPercentile(p) / 1e3,
                            pooled[1].getValueAtPercentile(p) / 1e3));
        }
        out.put("percentiles", curve.toString());
        // per window: the governed call's p50/p99/p99.9, then the ungoverned one's, in µs
        out.put("perWindow", String.join(";", perWindow));
        // every measured call's latency, so that rounds in separate JVMs can be pooled
        out.put("governedHistogram", encoded(pooled[0]));
        out.put("ungovernedHistogram", encoded(pooled[1]));
        out.put("gcCount", gcAfter[0] - gcBefore[0]);
        out.put("gcMillis", gcAfter[1] - gcBefore[1]);
        out.put("errors", callers.stream().mapToLong(c -> c.failed).sum());
        out.put("warmupMillis", warmedMillis);
        out.put("jitCpuMillisWhileMeasuring", jitWhileMeasuring);
        return out;
    }

    /**
     * The pages one call touches, governed and not ({@link PagesTouched}), warm-up included.
     */
    static Map<String, Object> pages(
            String governedUrl, String ungovernedUrl, String client, long warmupSeconds, int trials, long pauseMillis)
            throws Exception {
        Call governed = call(governedUrl, client, null, "sk-bench");
        Call ungoverned = call(ungovernedUrl, client, null, "sk-bench");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("client", client);
        out.putAll(PagesTouched.measure(governed, ungoverned, warmupSeconds, trials, pauseMillis));
        return out; // main adds the calls Sluice admitted, which must be the governed ones
    }

    /** The callers' CPU nanoseconds, then allocated bytes, spent so far in each kind of call (paired mode). */
    private static long[][] spentByKind(List<Caller> callers) {
        long[][] spent = new long[2][2];
        for (Caller c : callers) {
            for (int k = 0; k < 2; k++) {
                spent[0][k] += c.cpuNanosByKind[k];
                spent[1][k] += c.allocBytesByKind[k];
            }
        }
        return spent;
    }

    /** A histogram compressed and in Base64, one JSON string ({@link #decoded} reads it back). */
    static String encoded(Histogram histogram) {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return java.util.Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
    }

    static Histogram decoded(String base64) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(
                    java.nio.ByteBuffer.wrap(java.util.Base64.getDecoder().decode(base64)), 0);
        } catch (java.util.zip.DataFormatException e) {
            throw new IllegalArgumentException("not an encoded histogram", e);
        }
    }

    /** A histogram as the callers record into: nanoseconds up to a minute, three significant digits. */
    static Histogram newHistogram() {
        return new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    }

    /** Calls made so far by every caller: the first call's, then the second's. */
    private static long[] madeByKind(List<Caller> callers) {
        long first = 0;
        long all = 0;
        for (Caller c : callers) {
            first += c.madeFirst; // read before made, which counts it too: the second's count never goes negative
            all += c.made;
        }
        return new long[] {first, all - first};
    }

    private static final int WARM_UP_PAUSES = 3;

    /** One window: the callers resumed, measured for {@code millis}, paused; the window's calls also go into {@code pooled}. */
    private static Map<String, Object> measureWindow(List<Caller> callers, long millis, Histogram pooled)
            throws InterruptedException {
        for (Caller c : callers) {
            c.startMeasuring(); // drops what was recorded while paused (calls that ended after the last window)
        }
        long jitBefore = jitCpuMillis();
        long[] gcBefore = gcCountAndMillis();
        long[] processBefore = processCpuAndAlloc();
        long wallBefore = System.nanoTime();
        resumeCallers();
        Thread.sleep(millis);
        Recorded recorded = Recorded.stopMeasuring(callers);
        long wall = System.nanoTime() - wallBefore;
        long[] processAfter = processCpuAndAlloc();
        pauseCallers();
        pooled.add(recorded.latencies);
        long calls = recorded.latencies.getTotalCount();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("calls", calls);
        out.put("callsPerSecond", calls * 1e9 / wall);
        recorded.putFigures(out);
        out.put("processCpuMicrosPerCall", calls == 0 ? 0 : (processAfter[0] - processBefore[0]) / 1e3 / calls);
        out.put("jitCpuMillis", jitCpuMillis() - jitBefore);
        long[] gcAfter = gcCountAndMillis();
        out.put("gcCount", gcAfter[0] - gcBefore[0]);
        out.put("gcMillis", gcAfter[1] - gcBefore[1]);
        return out;
    }

    private static void putPercentiles(Histogram latencies, Map<String, Object> out) {
        out.put("p50Micros", latencies.getValueAtPercentile(50) / 1e3);
        out.put("p99Micros", latencies.getValueAtPercentile(99) / 1e3);
        out.put("p999Micros", latencies.getValueAtPercentile(99.9) / 1e3);
    }

    /** What the callers recorded since they began measuring: every call's latency, their CPU and allocation. */
    private static final class Recorded {
        final Histogram latencies = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long cpuNanos;
        long allocBytes;

        /** Stops every caller's measuring and adds up what they recorded. */
        static Recorded stopMeasuring(List<Caller> callers) {
            Recorded r = new Recorded();
            for (Caller c : callers) {
                r.latencies.add(c.stopMeasuring());
                r.cpuNanos += c.cpuNanos;
                r.allocBytes += c.allocBytes;
            }
            return r;
        }

        /** p50, p99 and p99.9 in µs, and the callers' CPU and bytes per call. */
        void putFigures(Map<String, Object> out) {
            long calls = latencies.getTotalCount();
            putPercentiles(latencies, out);
            out.put("callerCpuMicrosPerCall", calls == 0 ? 0 : cpuNanos / 1e3 / calls);
            out.put("callerAllocBytesPerCall", calls == 0 ? 0 : allocBytes / calls);
        }
    }

    /** Collections so far and the milliseconds they took, all collectors together. */
    private static long[] gcCountAndMillis() {
        long count = 0;
        long millis = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    /**
     * Keeps the callers warming up, after the fixed warm-up, until the JIT compilers used under
     * {@link #JIT_SETTLED_MILLIS_PER_SECOND} of CPU in each of {@link #JIT_SETTLED_SECONDS}
     * seconds in a row, at most {@link #MAX_EXTRA_WARMUP} more: with eight callers on two cores
     * the compilers get a small share of the CPU and take tens of seconds to compile the SDK and
     * the agent, and a measure taken meanwhile says more about their progress than about the
     * agent. Returns the extra warm-up in milliseconds.
     */
    static long warmUntilJitSettles() throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + MAX_EXTRA_WARMUP.toNanos();
        long before = jitCpuMillis();
        int quietSeconds = 0;
        while (quietSeconds < JIT_SETTLED_SECONDS && System.nanoTime() < deadline) {
            Thread.sleep(1_000);
            long now = jitCpuMillis();
            quietSeconds = now - before < JIT_SETTLED_MILLIS_PER_SECOND ? quietSeconds + 1 : 0;
            before = now;
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    private static final long JIT_SETTLED_MILLIS_PER_SECOND = 20;
    private static final int JIT_SETTLED_SECONDS = 3;
    private static final Duration MAX_EXTRA_WARMUP = Duration.ofSeconds(90);

    /**
     * CPU time of the JIT compiler threads so far, in milliseconds, from {@code /proc} (they are
     * hidden from {@code ThreadMXBean}); elsewhere than on Linux, the compilers' elapsed time from
     * {@code CompilationMXBean}, which also counts the time a compiler waits for a core.
     */
    private static long jitCpuMillis() {
        Path tasks = Paths.get("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        }
        long ticks = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                String stat;
                try {
                    stat = new String(Files.readAllBytes(thread.resolve("stat")), StandardCharsets.US_ASCII);
                } catch (IOException ended) {
                    continue;
                }
                int nameEnd = stat.lastIndexOf(')');
                if (stat.substring(stat.indexOf('(') + 1, nameEnd).contains("CompilerThre")) {
                    // fields after the name: state is the 1st, utime the 12th, stime the 13th
                    String[] fields = stat.substring(nameEnd + 2).split(" ");
                    ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                }
            }
        } catch (IOException e) {
            return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        }
        return ticks * 1000 / CLOCK_TICKS_PER_SECOND;
    }

    /** {@code getconf CLK_TCK}: 100 on every Linux this runs on. */
    private static final long CLOCK_TICKS_PER_SECOND = 100;

    /** Cleared when the callers are to stop. */
    private static volatile boolean running;

    /** Set while the callers are to wait between calls (windows mode); they wait on {@link #PAUSE}. */
    private static volatile boolean paused;

    private static final Object PAUSE = new Object();

    private static void pauseCallers() {
        paused = true;
    }

    private static void resumeCallers() {
        synchronized (PAUSE) {
            paused = false;
            PAUSE.notifyAll();
        }
    }

    /** Called by a caller that found {@link #paused} set: waits until resumed or stopped. */
    private static void awaitResume() {
        synchronized (PAUSE) {
            while (paused && running) {
                try {
                    PAUSE.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Starts {@code threads} callers, each on its own platform thread, calling until {@link #stopCallers}. */
    private static List<Caller> startCallers(Call call, int threads) {
        running = true;
        List<Caller> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Caller c = new Caller(call);
            c.thread = callerThread(c);
            c.thread.start();
            callers.add(c);
        }
        return callers;
    }

    /**
     * A caller's thread, a daemon: when {@code main} fails (a warm-up call failed), the JVM must end
     * with that error rather than stay alive calling. Once it did not: {@code main} had ended 27 s
     * into a paired run's control JVM, its caller was still calling 17 minutes later, and {@link
     * CallOverhead} waited for that JVM until it was killed.
     */
    private static Thread callerThread(Caller c) {
        Thread thread = new Thread(c::run, "caller");
        thread.setDaemon(true);
        return thread;
    }

    /** Stops the callers and waits for each to end its call (at most a minute each). */
    private static void stopCallers(List<Caller> callers) throws InterruptedException {
        running = false;
        resumeCallers();
        for (Caller c : callers) {
            c.thread.join(TimeUnit.MINUTES.toMillis(1));
        }
    }

    /**
     * One closed-loop caller. Warm-up and measurement run the same loop, recording every call: a
     * branch first taken when the measurement starts would make the JIT throw away and recompile
     * the loop with the whole call inlined into it, in the middle of the measurement. The main
     * thread swaps the recorder's histogram and reads this thread's CPU and allocation counters
     * at the start and the end instead.
     */
    private static final class Caller {
        /** One call, or two taken in turns A B B A (paired mode): each follows either as often. */
        final Call[] calls;
        /** One recorder per call. */
        final SingleWriterRecorder[] recorders;

        final SingleWriterRecorder recorder;
        Thread thread;
        long cpuNanos;
        long allocBytes;
        /** Calls that succeeded, warm-up included (written by this caller only). */
        volatile long made;
        /** Of {@link #made}, those of the first call (paired mode: the governed one). */
        volatile long madeFirst;
        /** Calls that failed, warm-up included; the caller goes on calling (written by this caller only). */
        volatile long failed;

        volatile int lastChars;
        volatile String error;
        /**
         * Paired mode: this thread's CPU nanoseconds and allocated bytes spent in each kind of call,
         * summed (written by this caller only; read between windows, a long at a time).
         */
        final long[] cpuNanosByKind = new long[2];

        final long[] allocBytesByKind = new long[2];

        Caller(Call... calls) {
            this.calls = calls;
            this.recorders = new SingleWriterRecorder[calls.length];
            for (int i = 0; i < calls.length; i++) {
                recorders[i] = new SingleWriterRecorder(TimeUnit.SECONDS.toNanos(60), 3);
            }
            this.recorder = recorders[0];
        }

        void run() {
            long highest = TimeUnit.SECONDS.toNanos(60);
            boolean paired = calls.length == 2;
            long turn = 0;
            while (running) {
                if (paused) {
                    awaitResume();
                    continue;
                }
                int which = calls.length == 1 ? 0 : ABBA[(int) (turn++ & 3)];
                long cpuStart = paired ? THREADS.getCurrentThreadCpuTime() : 0;
                long allocStart = paired ? THREADS.getCurrentThreadAllocatedBytes() : 0;
                long start = System.nanoTime();
                long took;
                try {
                    lastChars = calls[which].make();
                    took = System.nanoTime() - start; // before the counters' reads, which it must not include
                    if (paired) {
                        cpuNanosByKind[which] += THREADS.getCurrentThreadCpuTime() - cpuStart;
                        allocBytesByKind[which] += THREADS.getCurrentThreadAllocatedBytes() - allocStart;
                    }
                } catch (Throwable t) {
                    // counted, and the caller stays: its thread's counters must stay readable
                    failed++;
                    if (error == null) {
                        error = t.toString();
                    }
                    continue;
                }
                recorders[which].recordValue(Math.min(took, highest));
                made++;
                if (which == 0) {
                    madeFirst++;
                }
            }
        }

        /** Drops what the warm-up recorded and takes this caller's counters. */
        void startMeasuring() {
            recorder.getIntervalHistogram();
            cpuNanos = THREADS.getThreadCpuTime(thread.getId());
            allocBytes = THREADS.getThreadAllocatedBytes(thread.getId());
        }

        /** The calls recorded since {@link #startMeasuring}; the counters become the differences. */
        Histogram stopMeasuring() {
            Histogram measured = recorder.getIntervalHistogram();
            cpuNanos = THREADS.getThreadCpuTime(thread.getId()) - cpuNanos;
            allocBytes = THREADS.getThreadAllocatedBytes(thread.getId()) - allocBytes;
            return measured;
        }
    }

    /** The order of a paired caller's two calls, repeated. */
    private static final int[] ABBA = {0, 1, 1, 0};

    /** Process CPU time (ns) and bytes allocated by every live thread. */
    private static long[] processCpuAndAlloc() {
        long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        long alloc = 0;
        for (long b : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            if (b > 0) {
                alloc += b;
            }
        }
        return new long[] {cpu, alloc};
    }

    /** Calls made on platform threads before the burst, at least: the JIT must also be idle. */
    private static final int VT_WARM_UP_CALLS = 2_000;

    /**
     * {@code threads} callers on platform threads until they made {@code minCalls} calls and the
     * JIT compilers are idle ({@link #warmUntilJitSettles}); returns how long that took, in
     * milliseconds. Fails if a warm-up call failed.
     */
    private static long warmUpOnPlatformThreads(Call call, int threads, int minCalls) throws Exception {
        long started = System.nanoTime();
        List<Caller> callers = startCallers(call, threads);
        try {
            while (callsMade(callers) < minCalls) {
                throwIfOneFailed(callers);
                Thread.sleep(50);
            }
            warmUntilJitSettles();
        } finally {
            stopCallers(callers);
        }
        throwIfOneFailed(callers);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    private static void throwIfOneFailed(List<Caller> callers) {
        for (Caller c : callers) {
            if (c.error != null) {
                throw new IllegalStateException("a warm-up call failed: " + c.error);
            }
        }
    }

    private static long callsMade(List<Caller> callers) {
        long made = 0;
        for (Caller c : callers) {
            made += c.made;
        }
        return made;
    }

    /** The virtual-thread burst: see the class comment. */
    static Map<String, Object> virtualThreads(String url, int calls) throws Throwable {
        Call call = call(url, "jdk", null, "sk-bench");
        long warmedMillis = warmUpOnPlatformThreads(call, 8, VT_WARM_UP_CALLS);
        long jitBefore = jitCpuMillis();
        ExecutorService executor = (ExecutorService) MethodHandles.publicLookup()
                .findStatic(
                        Executors.class,
                        "newVirtualThreadPerTaskExecutor",
                        MethodType.methodType(ExecutorService.class))
                .invoke();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(calls);
        AtomicLong failed = new AtomicLong();
        java.util.concurrent.atomic.AtomicReference<String> firstError =
                new java.util.concurrent.atomic.AtomicReference<>();
        for (int i = 0; i < calls; i++) {
            executor.execute(() -> {
                try {
                    start.await();
                    call.make();
                } catch (Throwable t) {
                    failed.incrementAndGet();
                    firstError.compareAndSet(null, t.toString());
                } finally {
                    done.countDown();
                }
            });
        }
        long started = System.nanoTime();
        start.countDown();
        boolean finished = done.await(120, TimeUnit.SECONDS);
        long wall = System.nanoTime() - started;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("calls", calls);
        out.put("finished", finished);
        out.put("failed", failed.get());
        out.put("firstError", firstError.get());
        out.put("wallMillis", wall / 1e6);
        out.put("warmupMillis", warmedMillis);
        out.put("jitCpuMillisDuringBurst", jitCpuMillis() - jitBefore);
        return out;
    }

    /** The footprint run: see the class comment. */
    static Map<String, Object> tenants(String url, int tenants, int keys) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicLong failed = new AtomicLong();
        List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (int i = 0; i < tenants; i++) {
            String tenant = "t-" + i;
            String key = "sk-bench-" + (i % keys);
            futures.add(pool.submit(() -> {
                try {
                    jdk(client, url, tenant, key).make();
                } catch (Throwable t) {
                    failed.incrementAndGet();
                }
            }));
        }
        for (java.util.concurrent.Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        futures.clear();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenants", tenants);
        out.put("keys", keys);
        out.put("failed", failed.get());
        // with the agent, let its JMX registration (a thread of its own, after the first calls) finish
        for (int i = 0;
                i < 50
                        && admitted() == -1
                        && ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                                .anyMatch(a -> a.startsWith("-javaagent"));
                i++) {
            Thread.sleep(100);
        }
        Thread.sleep(2_000);
        out.put("heapUsedAfterGcBytes", heapAfterGc());
        String histogram = System.getProperty("histogram");
        if (histogram != null) {
            // the same as jcmd <pid> GC.class_histogram, from inside
            java.nio.file.Files.writeString(java.nio.file.Paths.get(histogram), JvmDiagnostics.run("gcClassHistogram"));
        }
        return out;
    }

    static long heapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(200);
            used = Math.min(
                    used,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** Admissions counted by Sluice's Governor bean; -1 without the agent. */
    private static long admitted() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName governor = new ObjectName("dev.sluice:type=Governor");
            if (!server.isRegistered(governor)) {
                return -1;
            }
            return ((Number) server.getAttribute(governor, "Admitted")).longValue();
        } catch (Exception e) {
            return -2;
        }
    }

    /**
     * What Sluice counted beyond admissions, summed over its providers and over the whole run
     * (warm-up included): a retry, a connection failure or a fault is a slow call that is not
     * overhead, so it must show; "-" without the agent.
     */
    private static String retriesAndFailures() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> providers = server.queryNames(new ObjectName("dev.sluice:type=Provider,*"), null);
            if (providers.isEmpty()) {
                return "-";
            }
            long retries = 0, connectionFailures = 0, otherErrors = 0, faults = 0;
            for (ObjectName provider : providers) {
                retries += ((Number) server.getAttribute(provider, "Retries")).longValue();
                connectionFailures += ((Number) server.getAttribute(provider, "ConnectionFailures")).longValue();
                otherErrors += ((Number) server.getAttribute(provider, "OtherErrors")).longValue();
                faults += ((Number) server.getAttribute(provider, "Faults")).longValue();
            }
            return "retries " + retries + ", connection failures " + connectionFailures + ", other errors "
                    + otherErrors + ", faults " + faults;
        } catch (Exception e) {
            return "unread: " + e;
        }
    }

    private static String sluiceThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(n -> n.toLowerCase(java.util.Locale.ROOT).startsWith("sluice"))
                .collect(Collectors.toCollection(TreeSet::new))
                .toString();
    }

    private static String prompt(int chars) {
        String[] words = {"please", "summarise", "the", "quarterly", "report", "for", "our", "customers"};
        StringBuilder b = new StringBuilder(chars + 16);
        for (int i = 0; b.length() < chars; i++) {
            b.append(words[i % words.length]).append(' ');
        }
        b.setLength(chars);
        return b.toString();
    }

    /** Enough JSON for the summary: maps, strings, numbers, booleans. */
    static String json(Map<String, Object> map) {
        return map.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":" + value(e.getValue()))
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static String value(Object v) {
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return "\"" + String.valueOf(v).replace("\\", "\\\\").replace("\"", "'") + "\"";
    }

    /**
     * Sockets with {@code TCP_NODELAY}, as the JDK HttpClient's are: OkHttp leaves Nagle's algorithm
     * on, and on loopback its request (headers, then the body) then waits for the server's delayed
     * ACK, ~40 ms per call, which would drown what the harness measures.
     */
    static final class NoDelaySockets extends javax.net.SocketFactory {
        private final javax.net.SocketFactory plain = javax.net.SocketFactory.getDefault();

        private static java.net.Socket noDelay(java.net.Socket s) throws java.io.IOException {
            s.setTcpNoDelay(true);
            return s;
        }

        @Override
        public java.net.Socket createSocket() throws java.io.IOException {
            return noDelay(plain.createSocket());
        }

        @Override
        public java.net.Socket createSocket(String host, int port) throws java.io.IOException {
            return noDelay(plain.createSocket(host, port));
        }

        @Override
        public java.net.Socket createSocket(String host, int port, java.net.InetAddress local, int localPort)
                throws java.io.IOException {
            return noDelay(plain.createSocket(host, port, local, localPort));
        }

        @Override
        public java.net.Socket createSocket(java.net.InetAddress host, int port) throws java.io.IOException {
            return noDelay(plain.createSocket(host, port));
        }

        @Override
        public java.net.Socket createSocket(
                java.net.InetAddress address, int port, java.net.InetAddress local, int localPort)
                throws java.io.IOException {
            return noDelay(plain.createSocket(address, port, local, localPort));
        }
    }

    private CallLoadApp() {}
}
