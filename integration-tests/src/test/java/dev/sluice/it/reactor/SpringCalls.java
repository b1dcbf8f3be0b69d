package dev.sluice.it.reactor;

import dev.sluice.it.harness.AppReport;
import io.netty.resolver.DefaultAddressResolverGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.springframework.http.client.ReactorClientHttpRequestFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;

/**
 * The Spring callers of {@link ReactorNettyApp}, apart so that the app runs on a class path without
 * Spring (another Reactor Netty in a child loader): Spring's {@code WebClient} and {@code RestClient}
 * over Reactor Netty, built as an application without Spring Boot builds them.
 */
final class SpringCalls {

    private SpringCalls() {}

    /** One WebClient caller and one RestClient caller, each making {@code calls} calls. */
    static void submit(ReactorNettyApp app, ExecutorService pool, List<Future<?>> work, int calls, String suffix) {
        WebClient web = webClient();
        RestClient rest = restClient();
        AppReport report = app.report;
        String url = app.url;
        java.util.concurrent.atomic.AtomicLong callIds = app.callIds;
        String CHAT = ReactorNettyApp.CHAT;

        work.add(pool.submit(() -> {
            for (int i = 0; i < calls; i++) {
                AppReport rc = report.group("restclient" + suffix);
                rc.call(() -> {
                    long governedBefore = governedOnThisThread();
                    org.springframework.http.ResponseEntity<String> response = rest.post()
                            .uri(url)
                            .header("Content-Type", "application/json")
                            .header("x-sim-call-id", "rest-" + callIds.incrementAndGet())
                            .header("X-Sluice-Tenant", "rest")
                            .header("X-Sluice-Class", suffix.isEmpty() ? "default" : "interactive")
                            .body(CHAT + "}")
                            .exchange((req, res) -> org.springframework.http.ResponseEntity.status(res.getStatusCode())
                                    .headers(res.getHeaders())
                                    .body(new String(
                                            res.getBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)));
                    if (governedOnThisThread() > governedBefore) {
                        // what a retry loop around this call (spring-retry's RetryTemplate) consults
                        rc.count("governedOnCallerThread", 1);
                    }
                    ReactorNettyApp.count(
                            rc,
                            ReactorNettyApp.outcome(
                                    response.getStatusCode().value(),
                                    response.getHeaders().getFirst("x-sluice-decision"),
                                    String.valueOf(response.getBody())),
                            suffix);
                });
            }
        }));
        work.add(pool.submit(() -> {
            for (int i = 0; i < calls; i++) {
                AppReport wc = report.group("webclient" + suffix);
                wc.call(() -> {
                    String outcome = web.post()
                            .uri(url)
                            .header("Content-Type", "application/json")
                            .header("x-sim-call-id", "web-" + callIds.incrementAndGet())
                            .header("X-Sluice-Tenant", "web")
                            .header("X-Sluice-Class", suffix.isEmpty() ? "default" : "interactive")
                            .bodyValue(CHAT + "}")
                            .exchangeToMono(r -> r.bodyToMono(String.class)
                                    .defaultIfEmpty("")
                                    .map(text -> ReactorNettyApp.outcome(
                                            r.statusCode().value(),
                                            r.headers().asHttpHeaders().getFirst("x-sluice-decision"),
                                            text)))
                            .block(Duration.ofMinutes(2));
                    ReactorNettyApp.count(wc, outcome, suffix);
                });
            }
        }));
    }

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

    /** Spring's WebClient as an application without Spring Boot builds it: its connector over Reactor Netty. */
    private static WebClient webClient() {
        return WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(
                        HttpClient.create().resolver(DefaultAddressResolverGroup.INSTANCE)))
                .defaultHeader("Authorization", "Bearer sk-it")
                .build();
    }

    /** Spring's RestClient over Reactor Netty, as Spring AI's OpenAiApi calls when Reactor Netty is what it finds. */
    private static RestClient restClient() {
        return RestClient.builder()
                .requestFactory(new ReactorClientHttpRequestFactory(
                        HttpClient.create().resolver(DefaultAddressResolverGroup.INSTANCE)))
                .defaultHeader("Authorization", "Bearer sk-it")
                .build();
    }
}
