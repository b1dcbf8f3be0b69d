package dev.sluice.instrumentation.jdkhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.bootstrap.BodyObserver;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tap as the JDK trusts it. This module's tests run with {@code jdk.internal.net.http}
 * exported to unnamed modules (its pom), as the agent exports it to the helpers' loader.
 */
class TappedSubscriberTest {

    private static final String ANSWER = "{\"id\":\"x\",\"usage\":{\"total_tokens\":3}}";

    private static HttpServer server;
    private static URI uri;

    @BeforeAll
    static void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = ANSWER.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    @Test
    void aTapOfTheJdksOwnSubscriberIsTrustedAndNeedsNoExecutor() throws Exception {
        assertThat(TappedSubscriber.trusted()).isTrue();
        HttpResponse.BodySubscriber<Object> tap = TappedSubscriber.of(
                cast(HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8)), new Recorder());
        assertThat(trustedSubscriber().isInstance(tap)).isTrue();
        assertThat(needsExecutor(tap)).isFalse();
    }

    @Test
    void aTapOfAnApplicationsSubscriberNeedsTheExecutorAsThatSubscriberDoes() throws Exception {
        HttpResponse.BodySubscriber<Object> tap = TappedSubscriber.of(
                cast(new Counting(HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8))), new Recorder());
        assertThat(trustedSubscriber().isInstance(tap)).isTrue();
        assertThat(needsExecutor(tap)).isTrue();
    }

    @Test
    void theBodyReachesTheApplicationAndTheObserverThroughEitherKindOfSubscriber() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = chatRequest();
        for (boolean ownSubscriber : new boolean[] {true, false}) {
            Recorder observer = new Recorder();
            HttpResponse<Object> response = client.send(request, info -> {
                HttpResponse.BodySubscriber<String> app = HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
                return TappedSubscriber.of(cast(ownSubscriber ? app : new Counting(app)), observer);
            });
            assertThat(response.body()).isEqualTo(ANSWER);
            observer.done.get(10, TimeUnit.SECONDS); // it ends once the application's body completed
            assertThat(observer.bytes.get()).isEqualTo(ANSWER.length());
            assertThat(observer.ended.get()).isTrue();
        }
    }

    @Test
    void theApplicationsBodyCompletesBeforeTheObserverIsToldItEnded() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = chatRequest();
        for (boolean ownSubscriber : new boolean[] {true, false}) {
            CompletableFuture<CompletionStage<String>> appBody = new CompletableFuture<>();
            Recorder observer = new Recorder() {
                @Override
                public void onEnd() {
                    bodyCompleteAtEnd.set(appBody.join().toCompletableFuture().isDone());
                    super.onEnd();
                }
            };
            client.send(request, info -> {
                HttpResponse.BodySubscriber<String> app = HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
                appBody.complete(app.getBody());
                return TappedSubscriber.of(cast(ownSubscriber ? app : new Counting(app)), observer);
            });
            observer.done.get(10, TimeUnit.SECONDS);
            assertThat(observer.bodyCompleteAtEnd.get())
                    .as(
                            "the application's body was complete when the observer was told (own subscriber: %s)",
                            ownSubscriber)
                    .isTrue();
        }
    }

    private static HttpRequest chatRequest() {
        return HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                .build();
    }

    private static Class<?> trustedSubscriber() throws ClassNotFoundException {
        return Class.forName("jdk.internal.net.http.ResponseSubscribers$TrustedSubscriber");
    }

    private static boolean needsExecutor(Object subscriber) throws Exception {
        Method needsExecutor = trustedSubscriber().getMethod("needsExecutor");
        return (Boolean) needsExecutor.invoke(subscriber);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static HttpResponse.BodySubscriber<Object> cast(HttpResponse.BodySubscriber<?> subscriber) {
        return (HttpResponse.BodySubscriber) subscriber;
    }

    /** An application's own subscriber: the JDK does not trust it. */
    private static final class Counting implements HttpResponse.BodySubscriber<String> {
        private final HttpResponse.BodySubscriber<String> delegate;

        Counting(HttpResponse.BodySubscriber<String> delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletionStage<String> getBody() {
            return delegate.getBody();
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            delegate.onSubscribe(subscription);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            delegate.onNext(item);
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

    private static class Recorder implements BodyObserver {
        final AtomicLong bytes = new AtomicLong();
        final AtomicBoolean ended = new AtomicBoolean();
        final AtomicBoolean bodyCompleteAtEnd = new AtomicBoolean();
        final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        public void onBytes(byte[] chunk, int offset, int length) {
            bytes.addAndGet(length);
        }

        @Override
        public void onEnd() {
            ended.set(true);
            done.complete(null);
        }

        @Override
        public void onFailure(Throwable failure) {
            done.completeExceptionally(failure);
        }

        @Override
        public void onClose() {}
    }
}
