package dev.sluice.it.leak;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.harness.AppReport;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A service whose LLM calls meet every way a call can end: a plan of {@code calls} calls, drawn
 * from {@code seed}, each a client (JDK HttpClient sync or async, OkHttp execute or enqueue,
 * openai-java sync or streaming) and an ending: read to the end, a provider error (429 or 500),
 * cancelled while waiting for the answer, connection reset before the answer, body truncated, head
 * stalled past the client's timeout, a 2xx body dropped unread (never closed, no reference
 * kept), or a future its caller stops waiting for while the head is stalled (the answer that
 * comes later is dropped). The faults are asked of the simulator per request
 * ({@code x-sim-force}).
 *
 * <p>When every call has ended, the application lets go of everything and reads the governor's
 * state through its MXBeans (calls in flight, calls waiting, reserved over every limit, leases the
 * reaper expired), calling {@code System.gc()} between readings so that dropped bodies become
 * unreachable, until the governor is quiet or {@code quietSeconds} have passed. Each call is
 * counted as {@code client:ending:planned} and, when it ended the way its ending means,
 * {@code client:ending:as-planned}; the readings as {@code state:*}.
 *
 * <p>With {@code nogc} as a last argument, no garbage is collected between readings: what an
 * exception or an error status held must come back at once, not when a {@code Cleaner} notices.
 *
 * <p>Arguments: baseUrl seed calls threads clients(a,b|all) endings(a,b|all) quietSeconds [nogc]
 */
public final class LeakMixApp {

    /** The clients a call can go through. */
    enum Client {
        JDK_SYNC("jdk-sync"),
        JDK_ASYNC("jdk-async"),
        OKHTTP("okhttp"),
        OKHTTP_ASYNC("okhttp-async"),
        OPENAI("openai"),
        OPENAI_STREAM("openai-stream");

        final String wire;

        Client(String wire) {
            this.wire = wire;
        }

        /**
         * openai-java's blocking create has no way to cancel it, nor a body to drop; only a future
         * can be abandoned.
         */
        boolean supports(Ending ending) {
            if (ending == Ending.ABANDON) {
                return this == JDK_ASYNC || this == OKHTTP_ASYNC;
            }
            if (ending == Ending.ERROR_UNREAD) {
                return this != OPENAI && this != OPENAI_STREAM; // the SDK reads every error body
            }
            return this != OPENAI || ending != Ending.CANCEL && ending != Ending.DROP;
        }
    }

    /**
     * How a call ends. {@code ABANDON}: the caller stops waiting for the future of a stalled call
     * (its own timeout) without cancelling it; the answer comes later, and nobody reads it.
     */
    enum Ending {
        OK("ok"),
        ERROR("error"),
        ERROR_UNREAD("error-unread"),
        CANCEL("cancel"),
        RESET("reset"),
        TRUNCATED("truncated"),
        STALL("stall"),
        DROP("drop"),
        ABANDON("abandon");

        final String wire;

        Ending(String wire) {
            this.wire = wire;
        }
    }

    /** One planned call. */
    static final class Planned {
        final Client client;
        final Ending ending;
        final boolean stream;
        final String force;
        final long cancelAfterMillis;

        Planned(Client client, Ending ending, boolean stream, String force, long cancelAfterMillis) {
            this.client = client;
            this.ending = ending;
            this.stream = stream;
            this.force = force;
            this.cancelAfterMillis = cancelAfterMillis;
        }

        String key() {
            return client.wire + ':' + ending.wire;
        }
    }

    /** How long a stalled or abandoning caller waits; the simulator delays a stalled head longer (see LeakIT). */
    static final Duration CLIENT_TIMEOUT = Duration.ofMillis(300);

    private static final MediaType JSON = MediaType.parse("application/json");

    private final String baseUrl;
    private final AppReport report = new AppReport();
    private final ScheduledExecutorService canceller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "leak-canceller");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient jdk =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final OkHttpClient okhttp = new OkHttpClient();
    private final OkHttpClient okhttpImpatient =
            okhttp.newBuilder().readTimeout(CLIENT_TIMEOUT).build();
    private final OpenAIClient openai;
    private final OpenAIClient openaiImpatient;

    private LeakMixApp(String baseUrl) {
        this.baseUrl = baseUrl;
        this.openai = OpenAIOkHttpClient.builder()
                .baseUrl(baseUrl + "/v1")
                .apiKey("sk-leak")
                .build();
        this.openaiImpatient = OpenAIOkHttpClient.builder()
                .baseUrl(baseUrl + "/v1")
                .apiKey("sk-leak")
                .timeout(CLIENT_TIMEOUT)
                .build();
    }

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        long seed = Long.parseLong(args[1]);
        int calls = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        Set<Client> clients = parse(Client.class, args[4]);
        Set<Ending> endings = parse(Ending.class, args[5]);
        int quietSeconds = Integer.parseInt(args[6]);
        boolean collectGarbage = args.length < 8 || !args[7].equals("nogc");

        LeakMixApp app = new LeakMixApp(baseUrl);
        List<Planned> plan = plan(new Random(seed), calls, clients, endings);
        app.run(plan, threads);
        app.awaitQuiet(quietSeconds, collectGarbage);
        app.report.print();
        System.exit(0);
    }

    private static <E extends Enum<E>> Set<E> parse(Class<E> type, String text) {
        Set<E> out = EnumSet.noneOf(type);
        for (E e : type.getEnumConstants()) {
            String wire = e instanceof Client ? ((Client) e).wire : ((Ending) e).wire;
            if (text.equals("all") || Arrays.asList(text.split(",")).contains(wire)) {
                out.add(e);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("nothing in " + text);
        }
        return out;
    }

    static List<Planned> plan(Random random, int calls, Set<Client> clients, Set<Ending> endings) {
        List<Client> clientList = new ArrayList<>(clients);
        List<Ending> endingList = new ArrayList<>(endings);
        if (clients.stream().noneMatch(c -> endings.stream().anyMatch(c::supports))) {
            throw new IllegalArgumentException("no client among " + clients + " can end as " + endings);
        }
        List<Planned> plan = new ArrayList<>(calls);
        while (plan.size() < calls) {
            Client client = clientList.get(random.nextInt(clientList.size()));
            Ending ending = endingList.get(random.nextInt(endingList.size()));
            boolean stream = client == Client.OPENAI_STREAM || client != Client.OPENAI && random.nextBoolean();
            long cancelAfter = random.nextInt(250);
            String force = force(ending, random);
            if (client.supports(ending)) {
                plan.add(new Planned(client, ending, stream, force, cancelAfter));
            }
        }
        return plan;
    }

    private static String force(Ending ending, Random random) {
        switch (ending) {
            case ERROR:
            case ERROR_UNREAD:
                return random.nextInt(3) == 0 ? "rate_limited" : "server_error";
            case CANCEL:
            case STALL:
            case ABANDON:
                return "slow_first_byte";
            case RESET:
                return "connection_reset";
            case TRUNCATED:
                return "truncated_stream";
            default:
                return null;
        }
    }

    private void run(List<Planned> plan, int threads) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger index = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            pool.submit(() -> {
                while (true) {
                    int i = index.getAndIncrement();
                    if (i >= plan.size()) {
                        return;
                    }
                    one(plan.get(i));
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(90, TimeUnit.SECONDS)) {
            report.count("unfinished", 1);
            pool.shutdownNow();
        }
    }

    private void one(Planned p) {
        report.count(p.key() + ":planned", 1);
        long started = report.begin();
        try {
            boolean asPlanned = call(p);
            report.succeeded(started);
            report.count(p.key() + (asPlanned ? ":as-planned" : ":completed"), 1);
        } catch (Throwable t) {
            report.failed(started, t);
            boolean asPlanned = p.ending != Ending.OK && p.ending != Ending.DROP;
            report.count(
                    p.key()
                            + (asPlanned
                                    ? ":as-planned"
                                    : ":failed:" + t.getClass().getSimpleName()),
                    1);
        } finally {
            Thread.interrupted(); // a cancel by interrupt must not reach the next call
        }
    }

    /**
     * Makes one call; true when it ended the way its ending means without an exception (read to
     * its end, dropped unread, handed back a provider error). An exception is the planned end of
     * every ending but ok and drop.
     */
    private boolean call(Planned p) throws Exception {
        switch (p.client) {
            case JDK_SYNC:
            case JDK_ASYNC:
                return jdk(p);
            case OKHTTP:
            case OKHTTP_ASYNC:
                return okhttp(p);
            case OPENAI:
                return openai(p);
            default:
                return openaiStream(p);
        }
    }

    /** A chat request of the leak tests: small, its answer bounded. */
    static String body(boolean stream) {
        return "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello to the leak test.\"}],"
                + "\"max_completion_tokens\":40"
                + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
                + "}";
    }

    // ------------------------------------------------------------------ JDK HttpClient

    private boolean jdk(Planned p) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer sk-leak")
                .POST(HttpRequest.BodyPublishers.ofString(body(p.stream)));
        if (p.force != null) {
            b.header("x-sim-force", p.force);
        }
        if (p.ending == Ending.STALL) {
            b.timeout(CLIENT_TIMEOUT);
        }
        HttpRequest request = b.build();
        HttpResponse<InputStream> response;
        if (p.client == Client.JDK_ASYNC) {
            CompletableFuture<HttpResponse<InputStream>> future =
                    jdk.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
            if (p.ending == Ending.CANCEL) {
                canceller.schedule(() -> future.cancel(true), p.cancelAfterMillis, TimeUnit.MILLISECONDS);
            }
            try {
                response = future.get(waitMillis(p), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
            }
        } else {
            Interrupter interrupter = p.ending == Ending.CANCEL ? new Interrupter(p.cancelAfterMillis) : null;
            try {
                response = jdk.send(request, HttpResponse.BodyHandlers.ofInputStream());
            } finally {
                if (interrupter != null) {
                    interrupter.disarm();
                }
            }
        }
        return consume(
                p,
                response.statusCode(),
                response.headers().firstValue("x-sluice-decision").isPresent(),
                response.body());
    }

    /** How long a caller waits for a future: not long when it is to abandon it (a TimeoutException). */
    private static long waitMillis(Planned p) {
        return p.ending == Ending.ABANDON ? CLIENT_TIMEOUT.toMillis() : 60_000;
    }

    /** Reads (and closes) a body as the planned ending says, or drops it. */
    private boolean consume(Planned p, int status, boolean localAnswer, InputStream body) throws IOException {
        if (p.ending == Ending.DROP && status == 200) {
            return true; // the caller forgets the body: nothing closes it
        }
        if (p.ending == Ending.ERROR_UNREAD && status >= 400) {
            return true; // the caller looks at the status only: the body is neither read nor closed
        }
        try (InputStream in = body) {
            in.readAllBytes();
        }
        return answeredAsPlanned(p, status, localAnswer);
    }

    /**
     * Whether an answer is how the call was planned to end: a 2xx for ok, an error for error; a
     * call to stall or cancel may also get Sluice's own 429 (its wait for admission, during a pause
     * another call's 429 caused, ran out at the caller's timeout).
     */
    private static boolean answeredAsPlanned(Planned p, int status, boolean localAnswer) {
        switch (p.ending) {
            case OK:
                return status == 200;
            case ERROR:
            case ERROR_UNREAD:
                return status >= 400;
            case STALL:
            case CANCEL:
                return status == 429 && localAnswer;
            default:
                return false;
        }
    }

    /** Interrupts the calling thread after a delay, unless disarmed first (a blocking call's cancel). */
    private final class Interrupter {
        private final Thread thread = Thread.currentThread();
        private final ScheduledFuture<?> task;
        private boolean armed = true;

        Interrupter(long afterMillis) {
            task = canceller.schedule(this::fire, afterMillis, TimeUnit.MILLISECONDS);
        }

        private synchronized void fire() {
            if (armed) {
                thread.interrupt();
            }
        }

        synchronized void disarm() {
            armed = false;
            task.cancel(false);
        }
    }

    // ------------------------------------------------------------------ OkHttp

    private boolean okhttp(Planned p) throws Exception {
        Request.Builder b = new Request.Builder()
                .url(baseUrl + "/v1/chat/completions")
                .header("Authorization", "Bearer sk-leak")
                .post(RequestBody.create(JSON, body(p.stream)));
        if (p.force != null) {
            b.header("x-sim-force", p.force);
        }
        Call call = (p.ending == Ending.STALL ? okhttpImpatient : okhttp).newCall(b.build());
        if (p.ending == Ending.CANCEL) {
            canceller.schedule(call::cancel, p.cancelAfterMillis, TimeUnit.MILLISECONDS);
        }
        Response response;
        if (p.client == Client.OKHTTP_ASYNC) {
            CompletableFuture<Response> future = new CompletableFuture<>();
            call.enqueue(new Callback() {
                @Override
                public void onFailure(Call c, IOException e) {
                    future.completeExceptionally(e);
                }

                @Override
                public void onResponse(Call c, Response r) {
                    future.complete(r);
                }
            });
            try {
                response = future.get(waitMillis(p), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
            }
        } else {
            response = call.execute();
        }
        int status = response.code();
        if (p.ending == Ending.DROP && status == 200) {
            return true; // neither the response nor its body is closed
        }
        if (p.ending == Ending.ERROR_UNREAD && status >= 400) {
            return true; // the caller looks at the status only: the body is neither read nor closed
        }
        try (Response r = response) {
            r.body().bytes();
        }
        return answeredAsPlanned(p, status, response.header("x-sluice-decision") != null);
    }

    // ------------------------------------------------------------------ openai-java

    private ChatCompletionCreateParams params(Planned p) {
        ChatCompletionCreateParams.Builder b = ChatCompletionCreateParams.builder()
                .model(ChatModel.GPT_4O_MINI)
                .addUserMessage("Say hello to the leak test.")
                .maxCompletionTokens(40);
        if (p.force != null) {
            b.putAdditionalHeader("x-sim-force", p.force);
        }
        return b.build();
    }

    private OpenAIClient openaiFor(Planned p) {
        return p.ending == Ending.STALL ? openaiImpatient : openai;
    }

    private boolean openai(Planned p) {
        ChatCompletion completion = openaiFor(p).chat().completions().create(params(p));
        return p.ending == Ending.OK && !completion.choices().isEmpty();
    }

    private boolean openaiStream(Planned p) {
        StreamResponse<ChatCompletionChunk> stream =
                openaiFor(p).chat().completions().createStreaming(params(p));
        if (p.ending == Ending.DROP) {
            return true; // the stream is never read nor closed
        }
        try (StreamResponse<ChatCompletionChunk> s = stream) {
            if (p.ending == Ending.CANCEL) {
                s.stream().findFirst(); // the caller stops after the first chunk and closes the stream
                throw new CancelledByClose();
            }
            return s.stream().count() > 0 && p.ending == Ending.OK;
        }
    }

    /** The planned end of a stream the caller closed early. */
    static final class CancelledByClose extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CancelledByClose() {
            super("closed after the first chunk", null, false, false);
        }
    }

    // ------------------------------------------------------------------ the governor's state

    /**
     * Reads the governor until it holds nothing (in flight, waiting, reserved), for at most
     * {@code seconds}, collecting garbage between readings (when {@code collectGarbage}) so that
     * dropped bodies become unreachable.
     */
    private void awaitQuiet(int seconds, boolean collectGarbage) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        State.awaitRegistered(jmx, governor);
        State first = State.read(jmx, governor);
        report.count("state:inFlightAtEnd", first.inFlight);
        report.count("state:reservedAtEnd", first.reserved);
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(seconds);
        State state = first;
        while (!state.quiet() && System.nanoTime() - deadline < 0) {
            if (collectGarbage) {
                System.gc();
            }
            Thread.sleep(100); // the reading is cached for a moment; the Cleaner runs on its own thread
            state = State.read(jmx, governor);
        }
        report.count("state:inFlight", state.inFlight);
        report.count("state:waiting", state.waiting);
        report.count("state:reserved", state.reserved);
        report.count("state:leaseExpired", state.leaseExpired);
        report.count("state:admitted", state.admitted);
        report.count("state:millisToQuiet", state.quiet() ? (System.nanoTime() - start) / 1_000_000 : -1);
        report.note("state", state.toString());
        System.out.println("governor after " + seconds + " s at most: " + state);
    }

    /** One reading of the governor's MXBeans. */
    static final class State {
        final long inFlight;
        final long waiting;
        final long reserved;
        final long leaseExpired;
        final long admitted;
        final String reservedByLimit;

        private State(long inFlight, long waiting, long reserved, long leaseExpired, long admitted, String byLimit) {
            this.inFlight = inFlight;
            this.waiting = waiting;
            this.reserved = reserved;
            this.leaseExpired = leaseExpired;
            this.admitted = admitted;
            this.reservedByLimit = byLimit;
        }

        /** Waits, at most 20 s, for the governor's MXBean: the agent registers it a moment after start. */
        static void awaitRegistered(MBeanServer jmx, ObjectName governor) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!jmx.isRegistered(governor) && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
        }

        static State read(MBeanServer jmx, ObjectName governor) throws Exception {
            long reserved = 0;
            StringBuilder byLimit = new StringBuilder();
            for (ObjectName limit : jmx.queryNames(new ObjectName("dev.sluice:type=Limit,*"), null)) {
                long r = ((Number) jmx.getAttribute(limit, "Reserved")).longValue();
                long f = ((Number) jmx.getAttribute(limit, "InFlight")).longValue();
                reserved += r;
                if (r != 0 || f != 0) {
                    byLimit.append(' ')
                            .append(limit.getKeyProperty("name"))
                            .append("=")
                            .append(r)
                            .append('/')
                            .append(f)
                            .append(" calls");
                }
            }
            return new State(
                    ((Number) jmx.getAttribute(governor, "InFlight")).longValue(),
                    ((Number) jmx.getAttribute(governor, "Waiting")).longValue(),
                    reserved,
                    ((Number) jmx.getAttribute(governor, "LeaseExpired")).longValue(),
                    ((Number) jmx.getAttribute(governor, "Admitted")).longValue(),
                    byLimit.toString());
        }

        boolean quiet() {
            return inFlight == 0 && waiting == 0 && reserved == 0;
        }

        @Override
        public String toString() {
            return "inFlight=" + inFlight + " waiting=" + waiting + " reserved=" + reserved + " (" + reservedByLimit
                    + " ) leaseExpired=" + leaseExpired + " admitted=" + admitted;
        }
    }
}
