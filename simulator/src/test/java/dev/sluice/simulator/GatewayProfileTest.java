package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.simulator.protocol.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class GatewayProfileTest {

    private static HttpResponse<String> chat(Simulator sim, String key, String body, String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer " + key;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return Http.post(sim.apiBaseUrl() + "/chat/completions", body, all);
    }

    private static JsonNode error(HttpResponse<String> r) {
        return Json.parse(r.body().getBytes(StandardCharsets.UTF_8)).get("error");
    }

    @Test
    void defaultsAreTheDocumentedBuckets() {
        var limits = Simulator.builder().profile(Profile.GATEWAY).resolvedLimits();
        assertThat(limits).extracting(Limit::name).containsExactly("key_chat", "org_chat", "key_concurrency");
        assertThat(limits).extracting(Limit::capacity).containsExactly(600L, 1800L, 8L);
        assertThat(limits.get(0).algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
    }

    @Test
    void theKeyBucketEndsItsMessageWithTheWindowEnd() {
        FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:14:30Z"));
        try (Simulator sim = Simulator.builder()
                .profile(Profile.GATEWAY)
                .clock(clock)
                .instant()
                .limit(Limit.perMinute(Dimension.REQUESTS, 2)
                        .scope(Scope.API_KEY)
                        .named("key_chat"))
                .limit(Limit.perMinute(Dimension.REQUESTS, 3)
                        .scope(Scope.ORGANIZATION)
                        .named("org_chat"))
                .start()) {
            assertThat(chat(sim, "k1", Bodies.chat()).statusCode()).isEqualTo(200);
            var ok = chat(sim, "k1", Bodies.chat());
            assertThat(ok.headers().map().keySet())
                    .noneMatch(h -> h.startsWith("x-ratelimit") || h.equals("retry-after"));
            var key = chat(sim, "k1", Bodies.chat());
            assertThat(key.statusCode()).isEqualTo(429);
            assertThat(key.headers().firstValue("retry-after")).isEmpty();
            assertThat(error(key).get("type").asText()).isEqualTo("rate_limit_error");
            assertThat(error(key).get("code").asText()).isEqualTo("rate_limit_exceeded");
            assertThat(error(key).get("message").asText()).endsWith("Retry after 2026-11-29T10:15:00Z");

            assertThat(chat(sim, "k2", Bodies.chat()).statusCode()).isEqualTo(200);
            var org = chat(sim, "k2", Bodies.chat());
            assertThat(org.statusCode()).isEqualTo(429);
            assertThat(error(org).get("message").asText()).contains("org_chat").doesNotContain("Retry after");

            clock.advance(Duration.ofSeconds(30)); // the next window
            assertThat(chat(sim, "k1", Bodies.chat()).statusCode()).isEqualTo(200);
            assertThat(sim.ledger().maxAdmittedInAnyFixedWindow(Duration.ofMinutes(1)))
                    .isEqualTo(3);
        }
    }

    @Test
    void theNinthConcurrentRequestOfAKeyIsRefusedAtOnce() throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.GATEWAY)
                .firstByteLatency(Duration.ofMillis(100))
                .latencyPerToken(Duration.ofMillis(40))
                .start()) {
            List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                slow.add(CompletableFuture.supplyAsync(() -> chat(sim, "k-c", Bodies.chat(4, 100, true, false))));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> sim.ledger().inFlight() == 8);
            long start = System.nanoTime();
            var refused = chat(sim, "k-c", Bodies.chat());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(error(refused).get("message").asText())
                    .contains("key_concurrency")
                    .doesNotContain("Retry after");
            assertThat(chat(sim, "another-key", Bodies.chat(4, 1, false, false)).statusCode())
                    .isEqualTo(200);
            for (var f : slow) {
                assertThat(f.get().statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> sim.ledger().inFlight() == 0);
            assertThat(chat(sim, "k-c", Bodies.chat(4, 1, false, false)).statusCode())
                    .isEqualTo(200);
            assertThat(sim.ledger().forApiKey("k-c").counts().rejected()).isEqualTo(1);
        }
    }

    @Test
    void budgetResidencyAndSizeRefusalsAreNotRateLimits() {
        try (Simulator sim =
                Simulator.builder().profile(Profile.GATEWAY).instant().start()) {
            var budget = chat(sim, "k", Bodies.chat(), "x-sim-force", "budget_exceeded");
            assertThat(budget.statusCode()).isEqualTo(402);
            assertThat(error(budget).get("code").asText()).isEqualTo("budget_exceeded");
            var policy = chat(sim, "k", Bodies.chat(), "x-sim-force", "no_endpoint_for_policy");
            assertThat(policy.statusCode()).isEqualTo(409);
            assertThat(error(policy).get("code").asText()).isEqualTo("no_endpoint_for_policy");
            var big = chat(sim, "k", Bodies.chat(1024 * 1024 + 1, 10, false, false), "x-sim-force", "overload");
            assertThat(big.statusCode()).isEqualTo(413);
            assertThat(sim.ledger().counts().errors()).isEqualTo(3);
            assertThat(sim.ledger().counts().admitted()).isZero();
        }
    }
}
