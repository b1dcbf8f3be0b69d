package dev.sluice.benchmarks.overhead;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * What wrapping the JDK client's own body subscriber costs a call, with no agent: Sluice's tap on
 * a 2xx body ({@code TappedSubscriber}) is such a wrapper, and the JDK treats its own subscribers
 * ({@code BodyHandlers.ofString()} and the like) as trusted, delivering their bodies without
 * handing them to its executor, which it does for any other. One JVM, one caller taking the two
 * kinds of call in turns (A B B A) against a loopback server answering 2.6 KB at once, 8 KiB
 * requests; prints each kind's percentiles and their difference.
 *
 * <pre>
 * java -Dsun.net.httpserver.nodelay=true -cp benchmarks/target/sluice-benchmarks.jar \
 *     dev.sluice.benchmarks.overhead.WrappedBodySubscriber [measuredSeconds=30] [warmupSeconds=15]
 * </pre>
 *
 * ({@code nodelay}: the JDK's server otherwise waits ~40 ms on Nagle's algorithm per answer.)
 */
public final class WrappedBodySubscriber {

    /** Passes everything through, looking at each buffer, as a tap does at its cheapest. */
    private static final class Wrapper<T> implements HttpResponse.BodySubscriber<T> {
        private final HttpResponse.BodySubscriber<T> delegate;
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
            HttpResponse.BodyHandler<String> wrapped = info -> new Wrapper<>(own.apply(info));
            Histogram ownTimes = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            Histogram wrappedTimes = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            run(client, request, own, wrapped, warmupNanos, null, null);
            long pairs = run(client, request, own, wrapped, measuredNanos, ownTimes, wrappedTimes);
            System.out.println("pairs: " + pairs);
            for (double q : new double[] {50, 90, 99, 99.9}) {
                long a = ownTimes.getValueAtPercentile(q) / 1_000;
                long b = wrappedTimes.getValueAtPercentile(q) / 1_000;
                System.out.printf("p%s: own subscriber %d us, wrapped %d us, added %+d us%n", q, a, b, b - a);
            }
        } finally {
            server.stop(0);
            serverThreads.shutdown(); // the server leaves the executor it was given running
        }
    }

    /** Calls in turns for {@code nanos}; records into the histograms when given. Returns the pairs made. */
    private static long run(
            HttpClient client,
            HttpRequest request,
            HttpResponse.BodyHandler<String> own,
            HttpResponse.BodyHandler<String> wrapped,
            long nanos,
            Histogram ownTimes,
            Histogram wrappedTimes)
            throws Exception {
        long end = System.nanoTime() + nanos;
        long pairs = 0;
        while (System.nanoTime() < end) {
            boolean wrappedFirst = (pairs & 1) == 1;
            for (int k = 0; k < 2; k++) {
                boolean wrap = (k == 0) == wrappedFirst;
                long started = System.nanoTime();
                client.send(request, wrap ? wrapped : own);
                long took = System.nanoTime() - started;
                if (ownTimes != null) {
                    (wrap ? wrappedTimes : ownTimes).recordValue(took);
                }
            }
            pairs++;
        }
        return pairs;
    }
}
