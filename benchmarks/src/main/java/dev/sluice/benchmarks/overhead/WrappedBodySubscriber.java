package dev.sluice.benchmarks.overhead;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * What wrapping the JDK client's own body subscriber costs a call, with no agent: Sluice's tap on
 * a 2xx body ({@code TappedSubscriber}) is such a wrapper, and the JDK treats its own subscribers
 * ({@code BodyHandlers.ofString()} and the like) as trusted, delivering their bodies without
 * handing them to its executor, which it does for any other. One JVM, one caller taking each kind
 * of call in turn against a loopback server answering 2.6 KB at once, 8 KiB requests; prints each
 * kind's percentiles and their difference from the JDK's own subscriber. Run with {@code
 * jdk.internal.net.http} exported, a third kind is the wrapper made one of the JDK's trusted
 * subscribers ({@link TrustedWrapper}), as the agent makes its tap.
 *
 * <pre>
 * java -Dsun.net.httpserver.nodelay=true --add-exports java.net.http/jdk.internal.net.http=ALL-UNNAMED \
 *     -cp benchmarks/target/sluice-benchmarks.jar \
 *     dev.sluice.benchmarks.overhead.WrappedBodySubscriber [measuredSeconds=30] [warmupSeconds=15]
 * </pre>
 *
 * ({@code nodelay}: the JDK's server otherwise waits ~40 ms on Nagle's algorithm per answer.)
 */
public final class WrappedBodySubscriber {

    /** Passes everything through, looking at each buffer, as a tap does at its cheapest. */
    static class Wrapper<T> implements HttpResponse.BodySubscriber<T> {
        final HttpResponse.BodySubscriber<T> delegate;
        private long bytes;

        Wrapper(HttpResponse.BodySubscriber<T> delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletionStage<T> getBody() {
            return delegate.getBody();
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            delegate.onSubscribe(subscription);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer item : items) {
                bytes += item.remaining();
            }
            delegate.onNext(items);
        }

        @Override
        public void onError(Throwable throwable) {
            delegate.onError(throwable);
        }

        @Override
        public void onComplete() {
            delegate.onComplete();
        }
    }

    public static void main(String[] args) throws Exception {
        long measuredNanos = TimeUnit.SECONDS.toNanos(args.length > 0 ? Long.parseLong(args[0]) : 30);
        long warmupNanos = TimeUnit.SECONDS.toNanos(args.length > 1 ? Long.parseLong(args[1]) : 15);
        byte[] answer = new byte[2_600];
        Arrays.fill(answer, (byte) 'a');
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        ExecutorService serverThreads = Executors.newFixedThreadPool(2);
        server.setExecutor(serverThreads);
        server.start();
        try {
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1"))
                    .POST(HttpRequest.BodyPublishers.ofString("x".repeat(8_192)))
                    .build();
            HttpResponse.BodyHandler<String> own = HttpResponse.BodyHandlers.ofString();
            List<String> names = new ArrayList<>(List.of("own subscriber", "wrapped"));
            List<HttpResponse.BodyHandler<String>> kinds = new ArrayList<>();
            kinds.add(own);
            kinds.add(info -> new Wrapper<>(own.apply(info)));
            Function<HttpResponse.BodySubscriber<String>, HttpResponse.BodySubscriber<String>> trusted =
                    trustedWrapper();
            if (trusted != null) {
                names.add("trusted wrapper");
                kinds.add(info -> trusted.apply(own.apply(info)));
            }
            List<Histogram> times = new ArrayList<>();
            for (int k = 0; k < kinds.size(); k++) {
                times.add(new Histogram(TimeUnit.SECONDS.toNanos(10), 3));
            }
            run(client, request, kinds, warmupNanos, null);
            long rounds = run(client, request, kinds, measuredNanos, times);
            System.out.println("rounds of " + kinds.size() + " calls: " + rounds);
            for (double q : new double[] {50, 90, 99, 99.9}) {
                long base = times.get(0).getValueAtPercentile(q) / 1_000;
                StringBuilder line = new StringBuilder("p" + q + ": " + names.get(0) + " " + base + " us");
                for (int k = 1; k < kinds.size(); k++) {
                    long added = times.get(k).getValueAtPercentile(q) / 1_000 - base;
                    line.append(String.format(", %s %+d us", names.get(k), added));
                }
                System.out.println(line);
            }
        } finally {
            server.stop(0);
            serverThreads.shutdown(); // the server leaves the executor it was given running
        }
    }

    /** {@link TrustedWrapper}'s maker when {@code jdk.internal.net.http} is exported here, else null. */
    @SuppressWarnings("unchecked")
    private static Function<HttpResponse.BodySubscriber<String>, HttpResponse.BodySubscriber<String>> trustedWrapper()
            throws ReflectiveOperationException {
        if (!HttpClient.class
                .getModule()
                .isExported("jdk.internal.net.http", WrappedBodySubscriber.class.getModule())) {
            System.out.println("jdk.internal.net.http is not exported here: no trusted wrapper");
            return null;
        }
        return (Function<HttpResponse.BodySubscriber<String>, HttpResponse.BodySubscriber<String>>)
                Class.forName(WrappedBodySubscriber.class.getPackageName() + ".TrustedWrapper$Maker")
                        .getDeclaredConstructor()
                        .newInstance();
    }

    /** Calls each kind in turn, rotating the order, for {@code nanos}; records when given histograms. Returns the rounds made. */
    private static long run(
            HttpClient client,
            HttpRequest request,
            List<HttpResponse.BodyHandler<String>> kinds,
            long nanos,
            List<Histogram> times)
            throws Exception {
        long end = System.nanoTime() + nanos;
        long rounds = 0;
        int n = kinds.size();
        while (System.nanoTime() < end) {
            for (int k = 0; k < n; k++) {
                int kind = (int) ((k + rounds) % n);
                long started = System.nanoTime();
                client.send(request, kinds.get(kind));
                long took = System.nanoTime() - started;
                if (times != null) {
                    times.get(kind).recordValue(took);
                }
            }
            rounds++;
        }
        return rounds;
    }
}
