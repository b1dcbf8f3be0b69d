package dev.sluice.benchmarks;

import dev.sluice.benchmarks.overhead.CallLoadApp;
import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.Governor;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.exchange.ExchangeGovernance;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Sluice's own work for one governed call, with no network and no HTTP library: the exchange
 * engine as the agent builds it with no configuration ({@link SluiceRuntime}), offered the
 * per-call harness's request (an OpenAI chat completion with an 8 KiB prompt) by a transport that
 * answers at once with OpenAI's headers and a 2.6 KB answer. What is timed is what a hook does
 * around the library's send: reading and weighing the request, identity, admission, learning the
 * answer's rate limits, reading its usage and settling.
 *
 * <p>{@code body=in-send} reads the answer before {@code send} returns, as the JDK client's
 * buffering handlers do; {@code body=after} reads it once the response is handed back, as an
 * OkHttp caller does. {@code SampleTime} gives the percentiles of the call's own CPU path, free of
 * the loopback and the scheduler that decide the end-to-end benchmark's tail; {@code -prof gc}
 * gives the bytes allocated per call:
 *
 * <pre>
 * java -jar benchmarks/target/sluice-benchmarks.jar GovernedCallBenchmark -t 1 -prof gc
 * </pre>
 *
 * <p>{@code -p cache=cooled} sweeps 4 MiB (four times this guest's L2) before each call, outside
 * the timing, as the HTTP call between two calls of an application cools the caches Sluice's
 * work would otherwise find warm in a loop; {@code cache=http} makes, outside the timing too, one
 * ungoverned JDK {@code HttpClient} call to a loopback server before each (the caches, TLBs and
 * branch predictors then hold the HTTP stack's work, as in an application); {@code cache=idle}
 * parks the caller 400 µs instead, as long as that call takes, doing nothing; {@code warm}, the
 * default, does none of these.
 */
@BenchmarkMode({Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
// A heap touched once, as a service's is after its first collections: at this benchmark's rate in
// the idle modes (a call every half millisecond) the run never fills a young generation, and
// every call's allocation met memory the kernel had not yet mapped (a page fault a few KB, 33.6
// against 20.7 us at p50 with cache=idle).
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class GovernedCallBenchmark {

    private static final String URL = "https://api.openai.com/v1/chat/completions";
    private static final byte[] REQUEST = CallLoadApp.CHAT_REQUEST.getBytes(StandardCharsets.UTF_8);
    private static final byte[] ANSWER = AnswerReadingBenchmark.answer();
    private static final Map<String, List<String>> ANSWER_HEADERS =
            ampleLimits(AnswerReadingBenchmark.headers(ANSWER.length));

    /**
     * OpenAI's headers with the per-call harness's limits (a billion requests and a trillion tokens
     * a minute): with the real headers' 2M tokens a minute, Sluice rightly paces these 2,400-token
     * calls to 16 a second.
     */
    private static Map<String, List<String>> ampleLimits(Map<String, List<String>> headers) {
        headers.put("x-ratelimit-limit-requests", List.of("1000000000"));
        headers.put("x-ratelimit-remaining-requests", List.of("999999999"));
        headers.put("x-ratelimit-limit-tokens", List.of("1000000000000"));
        headers.put("x-ratelimit-remaining-tokens", List.of("999999997592"));
        return headers;
    }

    @Param({"in-send", "after"})
    public String body;

    @Param({"warm"})
    public String cache = "warm";

    /** Swept before each call when {@code cache=cooled}; one long per 64-byte line is written. */
    private long[] sweep;

    private long swept;

    /** {@code cache=idle}: the caller parks as long as a loopback call takes, and does nothing else. */
    private boolean idle;

    private static final long IDLE_NANOS = 400_000;

    /** {@code cache=http}: a loopback server answering at once, and the client that calls it. */
    private com.sun.net.httpserver.HttpServer loopback;

    private java.net.http.HttpClient between;
    private java.net.http.HttpRequest betweenRequest;

    private boolean readInSend;
    private SluiceRuntime runtime;
    private ExchangeGovernance governance;

    @Setup(Level.Trial)
    public void start() {
        if (!List.of("in-send", "after").contains(body)) {
            throw new IllegalArgumentException("body must be in-send or after, was " + body);
        }
        if (!List.of("warm", "cooled", "http", "idle").contains(cache)) {
            throw new IllegalArgumentException("cache must be warm, cooled, http or idle, was " + cache);
        }
        readInSend = body.equals("in-send");
        sweep = cache.equals("cooled") ? new long[4 * 1024 * 1024 / Long.BYTES] : null;
        if (cache.equals("http")) {
            startLoopback();
        }
        idle = cache.equals("idle");
        runtime = SluiceRuntime.start(SluiceConfig.defaults());
        governance = runtime.governance();
        if (!governance.governs(URL)) {
            throw new IllegalStateException("Sluice does not govern " + URL);
        }
    }

    Governor governor() {
        return runtime.governor();
    }

    @TearDown(Level.Trial)
    public void stop() {
        runtime.close();
        if (loopback != null) {
            loopback.stop(0);
        }
    }

    private void startLoopback() {
        try {
            loopback = com.sun.net.httpserver.HttpServer.create(
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        loopback.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, ANSWER.length);
            exchange.getResponseBody().write(ANSWER);
            exchange.close();
        });
        loopback.start();
        between = java.net.http.HttpClient.newHttpClient();
        betweenRequest = java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                        "http://127.0.0.1:" + loopback.getAddress().getPort() + "/v1/chat/completions"))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(REQUEST))
                .build();
    }

    /** Evicts what the last call left in the caches (not timed: JMH runs it outside the sample). */
    @Setup(Level.Invocation)
    public void cool() throws Exception {
        if (between != null) {
            between.send(betweenRequest, java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        }
        if (idle) {
            java.util.concurrent.locks.LockSupport.parkNanos(IDLE_NANOS);
        }
        if (sweep != null) {
            long sum = swept;
            for (int i = 0; i < sweep.length; i += 8) {
                sweep[i] += sum;
                sum += i;
            }
            swept = sum;
        }
    }

    @Benchmark
    public Object governedCall() {
        InstantTransport transport = new InstantTransport(readInSend);
        CallOutcome outcome = governance.execute(transport);
        if (outcome.failure() != null) {
            throw new IllegalStateException(outcome.failure());
        }
        if (!readInSend) {
            transport.readAnswer();
        }
        return outcome.response();
    }

    /** One call's exchange, as a hook's transport offers it; the provider answers at once. */
    static final class InstantTransport implements HttpTransport {

        /** An HTTP client's reads of the body: the first with the headers' packet, the rest after. */
        private static final int FIRST_READ_BYTES = AnswerReadingBenchmark.FIRST_READ_BYTES;

        private final boolean readInSend;
        private final Map<String, List<String>> requestHeaders = new HashMap<>(4);
        private BodyObserver observer;

        InstantTransport(boolean readInSend) {
            this.readInSend = readInSend;
            requestHeaders.put("authorization", List.of("Bearer sk-bench-0"));
            requestHeaders.put("content-type", List.of("application/json"));
        }

        void readAnswer() {
            observer.onBytes(ANSWER, 0, FIRST_READ_BYTES);
            observer.onBytes(ANSWER, FIRST_READ_BYTES, ANSWER.length - FIRST_READ_BYTES);
            observer.onEnd();
            observer.onClose();
        }

        @Override
        public String library() {
            return "instant";
        }

        @Override
        public String method() {
            return "POST";
        }

        @Override
        public String url() {
            return URL;
        }

        @Override
        public Map<String, List<String>> requestHeaders() {
            return requestHeaders;
        }

        @Override
        public byte[] requestBody() {
            return REQUEST;
        }

        @Override
        public long callerTimeoutNanos() {
            return 0;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public Object send(BodyObserver observer) {
            this.observer = observer;
            if (readInSend) {
                readAnswer();
            }
            return this;
        }

        @Override
        public CompletableFuture<Object> sendAsync(BodyObserver observer) {
            return CompletableFuture.completedFuture(send(observer));
        }

        @Override
        public int status(Object response) {
            return 200;
        }

        @Override
        public Map<String, List<String>> responseHeaders(Object response) {
            return ANSWER_HEADERS;
        }

        @Override
        public byte[] errorBody(Object response) {
            throw new IllegalStateException("the instant provider only answers 200");
        }

        @Override
        public Object handBack(Object response, Map<String, String> setHeaders) {
            return response;
        }

        @Override
        public void discard(Object response) {}

        @Override
        public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
            throw new IllegalStateException(
                    "Sluice answered locally (" + status + "): the benchmark's limits are ample");
        }

        @Override
        public Executor callbackExecutor() {
            return Runnable::run;
        }
    }
}
