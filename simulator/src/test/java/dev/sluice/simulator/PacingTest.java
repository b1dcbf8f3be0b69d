package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PacingTest {

    @Test
    void aStreamLastsFirstByteThenOneTokenAtATime() throws Exception {
        try (Simulator sim = Simulator.builder()
                .firstByteLatency(Duration.ofMillis(150))
                .latencyPerToken(Duration.ofMillis(40))
                .start()) {
            var s = Http.stream(
                    sim.apiBaseUrl() + "/chat/completions",
                    Bodies.chat(4, 10, true, true),
                    "Authorization",
                    "Bearer k");
            List<Http.Line> data = s.lines().stream()
                    .filter(l -> l.text().startsWith("data: "))
                    .toList();
            assertThat(data).hasSize(14); // role, 10 tokens, finish, usage, [DONE]
            assertThat(data.get(0).atMillis()).isBetween(140L, 1000L);
            long spread = data.get(11).atMillis() - data.get(1).atMillis();
            assertThat(spread).isBetween(300L, 1500L); // 9 gaps of 40 ms
            assertThat(data.get(13).text()).isEqualTo("data: [DONE]");
        }
    }

    @Test
    void aWholeAnswerArrivesAfterItsGenerationTime() {
        try (Simulator sim = Simulator.builder()
                .firstByteLatency(Duration.ofMillis(100))
                .latencyPerToken(Duration.ofMillis(20))
                .start()) {
            long start = System.nanoTime();
            var r = Http.post(
                    sim.apiBaseUrl() + "/chat/completions",
                    Bodies.chat(4, 20, false, false),
                    "Authorization",
                    "Bearer k");
            long elapsed = (System.nanoTime() - start) / 1_000_000;
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(elapsed).isGreaterThanOrEqualTo(480L); // 100 ms + 20 x 20 ms
        }
    }

    /**
     * OpenAI's headers leave with the body, and say how long it worked before answering: a client
     * reads from it when the call was counted.
     */
    @Test
    void theProcessingTimeSaysWhenTheHeadersLeft() throws Exception {
        try (Simulator sim = Simulator.builder()
                .firstByteLatency(Duration.ofMillis(100))
                .latencyPerToken(Duration.ofMillis(20))
                .start()) {
            var whole = Http.post(
                    sim.apiBaseUrl() + "/chat/completions",
                    Bodies.chat(4, 20, false, false),
                    "Authorization",
                    "Bearer k");
            assertThat(whole.headers().firstValue("openai-processing-ms")).hasValue("500"); // 100 + 20 x 20
            var stream = Http.stream(
                    sim.apiBaseUrl() + "/chat/completions",
                    Bodies.chat(4, 20, true, true),
                    "Authorization",
                    "Bearer k");
            assertThat(stream.response().headers().firstValue("openai-processing-ms"))
                    .hasValue("100");
            assertThat(stream.headersAtMillis()).isGreaterThanOrEqualTo(100L);
        }
    }

    @Test
    void manyPacedStreamsRunSideBySide() throws Exception {
        try (Simulator sim = Simulator.builder()
                .limit(Dimension.REQUESTS, 1000, Duration.ofSeconds(1))
                .firstByteLatency(Duration.ofMillis(100))
                .latencyPerToken(Duration.ofMillis(20))
                .start()) {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(120);
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 120; i++) { // 40 tokens at 20 ms: about a second each
                String tenant = "t" + (i % 3);
                calls.add(CompletableFuture.supplyAsync(
                        () -> Http.post(
                                sim.apiBaseUrl() + "/chat/completions",
                                Bodies.chat(4, 40, true, true),
                                "Authorization",
                                "Bearer k",
                                "x-sim-tenant",
                                tenant),
                        pool));
            }
            for (var c : calls) {
                assertThat(c.get().body()).endsWith("data: [DONE]\n\n");
            }
            long elapsed = (System.nanoTime() - start) / 1_000_000;
            pool.shutdown();
            // Serialized they would take two minutes; side by side, a few seconds even on a busy machine.
            assertThat(elapsed).isLessThan(30_000L);
            assertThat(sim.ledger().maxConcurrency()).isGreaterThan(30);
            assertThat(sim.ledger().snapshot().byTenant())
                    .hasSize(3)
                    .allSatisfy((t, c) -> assertThat(c.admitted()).isEqualTo(40));
            await().atMost(Duration.ofSeconds(5)).until(() -> sim.ledger().inFlight() == 0);
        }
    }
}
