package dev.sluice.it.reactor;

import dev.sluice.it.harness.AppReport;
import io.netty.resolver.DefaultAddressResolverGroup;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufMono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * A service calling OpenAI's chat completions over Reactor Netty, without an SDK, every way such a
 * service does at once:
 *
 * <ul>
 *   <li>{@code sync}: {@code threads} callers, each {@code calls} times
 *       {@code post().uri(..).send(..).responseSingle(..).block()} on the raw {@code HttpClient};
 *   <li>{@code stream}: {@code streams} SSE completions read to their end as a {@code Flux}
 *       ({@code response((r, body) -> body.asString())});
 *   <li>{@code webclient}: {@code threads} callers, each {@code calls} times a Spring
 *       {@code WebClient} (no Spring Boot) {@code retrieve().toEntity(String.class).block()};
 *   <li>{@code restclient}: as many calls through Spring's {@code RestClient} on
 *       {@code ReactorClientHttpRequestFactory} (Spring AI 1.1's synchronous path);
 *   <li>{@code cancel}: {@code cancels} subscriptions disposed 30 ms after they start (most are
 *       still waiting for admission; the wall-clock instant of each dispose is noted under
 *       {@code disposedAtMillis:<call id>}), {@code cancels} streams cancelled after their first chunk, and
 *       {@code cancels} {@code responseConnection} receivers that never read the body (dropped).
 * </ul>
 *
 * <p>The raw client runs on ONE event-loop thread: an admission that parked it would stall every
 * call of that client. A sampler reads every event-loop thread's stack each millisecond and counts
 * the samples where one was on Sluice's blocking admission path ({@code
 * eventLoop:onBlockingAdmissionPath}), and those where one was held up inside Sluice at all
 * ({@code eventLoop:heldInSluice:<state>}). Each logical call carries a unique {@code x-sim-call-id} so the
 * simulator counts its attempts. At the end the app waits for the governor to hold nothing and
 * reports its MXBeans ({@code jmx:*}).
 *
 * <p>Arguments: url threads calls streams cancels [raw] ({@code raw}: no WebClient, for a class path
 * with Reactor Netty alone)
 */
public final class ReactorNettyApp {

    static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":"
            + "\"Say hello to the integration test, briefly.\"}],\"max_tokens\":32";

    final AppReport report = new AppReport();
    final String url;
    final AtomicLong callIds = new AtomicLong();
    private final Map<String, AtomicInteger> eventLoopStates = new ConcurrentHashMap<>();

    private ReactorNettyApp(String url) {
        this.url = url;
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int threads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        int streams = Integer.parseInt(args[3]);
        int cancels = Integer.parseInt(args[4]);
        boolean withWebClient = args.length <= 5 || !args[5].equals("raw");
        new ReactorNettyApp(url).run(threads, calls, streams, cancels, withWebClient);
        System.exit(0);
    }

    private void run(int threads, int calls, int streams, int cancels, boolean withWebClient) throws Exception {
        // the JDK resolver (so -Djdk.net.hosts.file points api.openai.com at the simulator)
        HttpClient raw = HttpClient.create(ConnectionProvider.create("it-raw", 64))
                .runOn(LoopResources.create("it-loop", 1, true))
                .resolver(DefaultAddressResolverGroup.INSTANCE)
                .headers(h -> h.set("Content-Type", "application/json").set("Authorization", "Bearer sk-it"));

        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> sample(sampling), "it-event-loop-sampler");
        sampler.setDaemon(true);
        sampler.start();

        ExecutorService pool = Executors.newFixedThreadPool(3 * threads + streams + 3 * cancels + 1);
        List<java.util.concurrent.Future<?>> work = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            // with -Dit.interactive=true the first caller of each kind asks for the interactive class
            // (300 ms at most in the queue): under the limit some of its calls get Sluice's local 429
            String suffix = t == 0 && Boolean.getBoolean("it.interactive") ? INTERACTIVE : "";
            work.add(pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    AppReport sync = report.group("sync" + suffix);
                    sync.call(() -> {
                        String outcome = raw.post()
                                .uri(url)
                                .send((req, out) -> {
                                    req.header("x-sim-call-id", "sync-" + callIds.incrementAndGet());
                                    req.header("X-Sluice-Tenant", "raw"); // Sluice's: must not reach the provider
                                    if (!suffix.isEmpty()) {
                                        req.header("X-Sluice-Class", "interactive");
                                    }
                                    return out.send(ByteBufMono.fromString(Mono.just(CHAT + "}")));
                                })
                                .responseSingle((r, body) -> body.asString()
                                        .defaultIfEmpty("")
                                        .map(text -> outcome(
                                                r.status().code(),
                                                r.responseHeaders().get("x-sluice-decision"),
                                                text)))
                                .block(Duration.ofMinutes(2));
                        count(sync, outcome, suffix);
                    });
                }
            }));
            if (withWebClient) {
                SpringCalls.submit(this, pool, work, calls, suffix);
            }
        }
        for (int s = 0; s < streams; s++) {
            work.add(pool.submit(() -> {
                AppReport st = report.group("stream");
                st.call(() -> {
                    List<String> chunks = streamCall(raw, "stream-" + callIds.incrementAndGet(), -1);
                    String all = String.join("", chunks);
                    if (!all.contains("[DONE]")) {
                        throw new IllegalStateException("stream without [DONE]: " + all);
                    }
                    st.count("chunks", chunks.size());
                    count(st, "status:200");
                });
            }));
        }
        // cancellations: mid-admission (or mid-request) and mid-stream
        CountDownLatch cancelled = new CountDownLatch(cancels);
        AppReport cancel = report.group("cancel");
        for (int c = 0; c < cancels; c++) {
            // a receiver that takes the connection and never reads the body: dropped, not leaked
            work.add(pool.submit(() -> {
                Integer status = raw.post()
                        .uri(url)
                        .send((req, out) -> {
                            req.header("x-sim-call-id", "dropped-" + callIds.incrementAndGet());
                            return out.send(ByteBufMono.fromString(Mono.just(CHAT + "}")));
                        })
                        .responseConnection(
                                (r, connection) -> Mono.just(r.status().code()))
                        .next()
                        .block(Duration.ofMinutes(2));
                cancel.count("droppedBody:" + status, 1);
            }));
            work.add(pool.submit(() -> {
                // subscribed while other calls wait for admission, so this one waits too when disposed
                if (othersWaiting(10)) {
                    cancel.count("subscribedWhileOthersWaited", 1);
                }
                String callId = "cancel-" + callIds.incrementAndGet();
                Disposable d = raw.post()
                        .uri(url)
                        .send((req, out) -> {
                            req.header("x-sim-call-id", callId);
                            return out.send(ByteBufMono.fromString(Mono.just(CHAT + "}")));
                        })
                        .responseSingle((r, body) -> body.asString())
                        .subscribe(s -> cancel.count("completedBeforeCancel", 1), e -> cancel.count("error", 1));
                try {
                    Thread.sleep(30);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                cancel.note("disposedAtMillis:" + callId, String.valueOf(System.currentTimeMillis()));
                d.dispose();
                cancel.count("disposed", 1);
                cancelled.countDown();
            }));
            work.add(pool.submit(() -> {
                List<String> chunks = streamCall(raw, "cancel-stream-" + callIds.incrementAndGet(), 1);
                cancel.count("streamCancelledAfterChunks:" + chunks.size(), 1);
            }));
        }
        for (java.util.concurrent.Future<?> f : work) {
            f.get(4, TimeUnit.MINUTES);
        }
        pool.shutdown();
        sampling.set(false);
        sampler.join(1000);
        eventLoopStates.forEach((k, v) -> report.count("eventLoop:" + k, v.get()));
        awaitQuiet(20);
        report.print();
    }

    private List<String> streamCall(HttpClient raw, String callId, int take) {
        reactor.core.publisher.Flux<String> chunks = raw.post()
                .uri(url)
                .send((req, out) -> {
                    req.header("x-sim-call-id", callId);
                    return out.send(ByteBufMono.fromString(
                            Mono.just(CHAT + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}")));
                })
                .response((r, body) -> {
                    if (r.status().code() != 200) {
                        return body.asString()
                                .map(text -> "status:" + r.status().code());
                    }
                    return body.asString();
                });
        if (take > 0) {
            chunks = chunks.take(take);
        }
        List<String> list = chunks.collectList().block(Duration.ofMinutes(2));
        return list == null ? List.of() : list;
    }

    static String outcome(int status, String decision, String body) {
        if (status == 200 && !body.contains("\"usage\"")) {
            return "status:200:without-usage";
        }
        if (status != 429) {
            return "status:" + status;
        }
        return "status:429:" + (decision == null ? "provider" : decision);
    }

    /** The group-name suffix of the interactive callers, whose calls may end in Sluice's own 429. */
    static final String INTERACTIVE = "-interactive";

    static void count(AppReport group, String outcome) {
        count(group, outcome, "");
    }

    /** Counts an outcome; anything but a 200 (or, for an interactive caller, Sluice's local 429) fails the call. */
    static void count(AppReport group, String outcome, String suffix) {
        group.count(outcome, 1);
        boolean localRefusal = outcome.startsWith("status:429:") && !outcome.equals("status:429:provider");
        if (!outcome.equals("status:200") && !(localRefusal && !suffix.isEmpty())) {
            throw new IllegalStateException(outcome);
        }
    }

    /** Frames of Sluice's blocking path: a thread that waits for a permit runs through one of these. */
    private static final java.util.Set<String> BLOCKING_PATH = java.util.Set.of(
            "dev.sluice.core.Governor.admit",
            "dev.sluice.core.exchange.ExchangeGovernance.execute",
            "dev.sluice.core.exchange.ExchangeGovernance.attemptBlocking",
            "dev.sluice.core.exchange.ExchangeGovernance.parkUntil");

    /**
     * Every millisecond, each Netty event-loop thread's stack: whether it is on Sluice's blocking
     * path (waiting for a permit, or about to: it must never be), and whether it is held up, not
     * running, inside Sluice at all (a short lock or monitor of the governor or its estimator).
     */
    private void sample(AtomicBoolean sampling) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        while (sampling.get()) {
            for (ThreadInfo info : mx.dumpAllThreads(false, false, 64)) {
                String name = info.getThreadName();
                if (!(name.startsWith("it-loop") || name.startsWith("reactor-http"))) {
                    continue;
                }
                increment("samples");
                boolean inSluice = false;
                boolean blockingPath = false;
                for (StackTraceElement frame : info.getStackTrace()) {
                    if (frame.getClassName().startsWith("dev.sluice.")
                            && !frame.getClassName().startsWith("dev.sluice.it.")) {
                        inSluice = true;
                        blockingPath |= BLOCKING_PATH.contains(frame.getClassName() + "." + frame.getMethodName());
                    }
                }
                if (blockingPath) {
                    increment("onBlockingAdmissionPath");
                    report.note(
                            "eventLoopOnBlockingPath", name + " " + java.util.Arrays.toString(info.getStackTrace()));
                }
                if (inSluice && info.getThreadState() != Thread.State.RUNNABLE) {
                    increment("heldInSluice:" + info.getThreadState());
                    report.note(
                            "eventLoopHeldInSluice",
                            name + " " + info.getThreadState() + " "
                                    + java.util.Arrays.toString(java.util.Arrays.copyOf(info.getStackTrace(), 8)));
                }
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void increment(String key) {
        eventLoopStates.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    /** Waits (collecting garbage) until the governor holds nothing, then reports its MXBeans. */
    private void awaitQuiet(int seconds) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        if (!jmx.isRegistered(governor)) {
            report.note("jmx", "no governor");
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long[] state = read(jmx, governor);
        while ((state[0] != 0 || state[1] != 0 || state[2] != 0) && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(100);
            state = read(jmx, governor);
        }
        report.count("jmx:inFlight", state[0]);
        report.count("jmx:waiting", state[1]);
        report.count("jmx:reserved", state[2]);
        report.count("jmx:admitted", ((Number) jmx.getAttribute(governor, "Admitted")).longValue());
        report.count("jmx:leaseExpired", ((Number) jmx.getAttribute(governor, "LeaseExpired")).longValue());
        ObjectName openai = new ObjectName("dev.sluice:type=Provider,name=openai");
        if (jmx.isRegistered(openai)) {
            for (String a : new String[] {
                "Calls", "Attempts", "Retries", "LocalRejections", "Status429", "Faults", "InputTokens", "OutputTokens"
            }) {
                report.count("jmx:openai:" + a, ((Number) jmx.getAttribute(openai, a)).longValue());
            }
        }
        // why Sluice handed a refusal back instead of retrying it, when it did: a failing test says so
        String[] decisions = (String[])
                jmx.invoke(governor, "recentDecisions", new Object[] {200}, new String[] {int.class.getName()});
        List<String> handedBack = new ArrayList<>();
        for (String d : decisions) {
            if (d.contains("handed back")) {
                handedBack.add(d);
            }
        }
        if (!handedBack.isEmpty()) {
            report.note("jmx:handedBack", String.join(" | ", handedBack));
        }
    }

    /** Whether the governor had calls waiting for admission within {@code seconds} (false without the agent). */
    private static boolean othersWaiting(int seconds) {
        try {
            MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
            ObjectName governor = new ObjectName("dev.sluice:type=Governor");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() - deadline < 0) {
                if (jmx.isRegistered(governor) && ((Number) jmx.getAttribute(governor, "Waiting")).longValue() > 0) {
                    return true;
                }
                Thread.sleep(2);
            }
        } catch (Exception e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private static long[] read(MBeanServer jmx, ObjectName governor) throws Exception {
        long reserved = 0;
        for (ObjectName limit : jmx.queryNames(new ObjectName("dev.sluice:type=Limit,*"), null)) {
            reserved += ((Number) jmx.getAttribute(limit, "Reserved")).longValue();
        }
        return new long[] {
            ((Number) jmx.getAttribute(governor, "InFlight")).longValue(),
            ((Number) jmx.getAttribute(governor, "Waiting")).longValue(),
            reserved
        };
    }
}
