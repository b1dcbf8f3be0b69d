package dev.sluice.it.fallback;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.it.providers.JdkHttpApp;
import dev.sluice.it.providers.LoopbackHosts;
import dev.sluice.it.retry.SdkCallsApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.ledger.Exchange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fallback routes end to end: openai-java (OkHttp) calls one Azure OpenAI region, two simulators
 * play two regions ({@code acme-eastus} and {@code acme-westus}) with limits of their own, and
 * the agent's config lets interactive calls move to the west deployment while batch calls stay.
 * The JDK HttpClient (blocking and asynchronous sends) moves them the same way.
 */
class FallbackRoutesIT {

    static final String EAST = "acme-eastus.openai.azure.com";
    static final String WEST = "acme-westus.openai.azure.com";
    static final String WEST_DEPLOYMENT = "gpt-4o-mini-west";

    private static Simulator region() {
        return Simulator.builder()
                .profile(Profile.AZURE_OPENAI)
                .callIdHeader("x-call-id")
                .requestsPerMinute(60_000)
                .tokensPerMinute(10_000_000)
                .firstByteLatency(Duration.ofMillis(20))
                .latencyPerToken(Duration.ofMillis(1))
                .start();
    }

    private static String config(Simulator east, int eastPerSecond, Simulator west, String retry) {
        return "providers:\n"
                + "  - name: azure-east\n"
                + "    kind: azure-openai\n"
                + "    match: {urls: [\"" + LoopbackHosts.url(EAST, east.port(), "/") + "\"]}\n"
                + "    learnFromHeaders: false\n"
                + "    limits: [{dimension: requests, capacity: " + eastPerSecond + ", window: 1s}]\n"
                + "  - name: azure-west\n"
                + "    kind: azure-openai\n"
                + "    match: {urls: [\"" + LoopbackHosts.url(WEST, west.port(), "/") + "\"]}\n"
                + "    learnFromHeaders: false\n"
                + "    limits: [{dimension: requests, capacity: 100, window: 1s}]\n"
                + "fallbacks:\n"
                + "  - from: azure-east\n"
                + "    classes: [interactive]\n"
                + "    routes:\n"
                + "      - to: azure-west\n"
                + "        deployment: " + WEST_DEPLOYMENT + "\n"
                + "        apiKeyEnv: AZURE_WEST_API_KEY\n"
                + retry;
    }

    private static JsonNode run(Simulator east, String yaml, String... classes) throws Exception {
        return ForkedApp.of(FallbackApp.class)
                .timeout(Duration.ofSeconds(120))
                .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(EAST, WEST))
                .env("AZURE_WEST_API_KEY", "west-key")
                .withAgent(SluiceYaml.agentOptions(yaml))
                .args((Object[]) prepend(LoopbackHosts.url(EAST, east.port(), ""), classes))
                .run()
                .assertOk()
                .summary();
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    @Test
    void aSaturatedPrimarySendsInteractiveCallsToTheFallbackWhileBatchCallsWait() throws Exception {
        try (Simulator east = region();
                Simulator west = region()) {
            JsonNode s = run(east, config(east, 5, west, ""), "interactive:4:10", "batch:4:5");
            JsonNode interactive = s.path("groups").path("interactive");
            JsonNode batch = s.path("groups").path("batch");
            List<Exchange> westCalls = west.ledger().exchanges();
            List<Exchange> eastCalls = east.ledger().exchanges();
            System.out.printf(
                    "primary at 5 requests/s; interactive 4x10, batch 4x5%n  interactive: %s%n  batch: %s%n"
                            + "  east requests %d, west requests %d%n",
                    interactive, batch, eastCalls.size(), westCalls.size());
            assertThat(interactive.path("completed").asLong())
                    .as("every interactive call answered within its class's 300 ms\n%s", s)
                    .isEqualTo(40);
            long movedWest = interactive
                    .path("counters")
                    .path("route:azure-west/" + WEST_DEPLOYMENT)
                    .asLong();
            assertThat(movedWest)
                    .as("interactive calls the west deployment served\n%s", s)
                    .isPositive();
            assertThat(movedWest
                            + interactive
                                    .path("counters")
                                    .path("route:azure-east")
                                    .asLong())
                    .isEqualTo(40);
            assertThat(batch.path("completed").asLong())
                    .as("batch calls waited for the primary")
                    .isEqualTo(20);
            assertThat(batch.path("counters").path("route:none").asLong())
                    .as("batch has no fallback: its answers name no route")
                    .isEqualTo(20);
            assertThat(westCalls).hasSize((int) movedWest);
            assertThat(westCalls)
                    .as("the west region got its own key and deployment, and no batch call")
                    .allSatisfy(e -> {
                        assertThat(e.apiKey()).isEqualTo("west-key");
                        assertThat(e.path()).contains("/openai/deployments/" + WEST_DEPLOYMENT + "/");
                        assertThat(e.status()).isEqualTo(200);
                    });
            assertThat(eastCalls)
                    .as("the east region got the batch calls, the warm-up and the interactive calls it had room for")
                    .hasSize(20 + 1 + (int) (40 - movedWest));
            assertThat(eastCalls).allSatisfy(e -> assertThat(e.apiKey()).isEqualTo("east-key"));
            assertThat(east.ledger().counts().rejected())
                    .as("provider 429s in the east")
                    .isZero();
        }
    }

    @Test
    void anOverloadedPrimaryFallsThroughWithoutMultiplyingAttempts() throws Exception {
        try (Simulator east = region();
                Simulator west = region()) {
            east.faults().always(FaultKind.OVERLOAD);
            String retry = "retry: {maxAttempts: 2, budgetFloorPerSecond: 10}\n";
            JsonNode s = run(east, config(east, 100, west, retry), "interactive:3:4", "batch:1:3");
            JsonNode interactive = s.path("groups").path("interactive");
            JsonNode batch = s.path("groups").path("batch");
            Map<String, Integer> attempts = new HashMap<>(east.ledger().attemptsPerCall());
            west.ledger().attemptsPerCall().forEach((id, n) -> attempts.merge(id, n, Integer::sum));
            System.out.printf(
                    "primary answering 503, retry.maxAttempts 2%n  interactive: %s%n  batch: %s%n"
                            + "  attempts per call: max %d over %d calls (east %d requests, west %d)%n",
                    interactive,
                    batch,
                    attempts.values().stream().mapToInt(Integer::intValue).max().orElse(0),
                    attempts.size(),
                    east.ledger().exchanges().size(),
                    west.ledger().exchanges().size());
            assertThat(interactive
                            .path("counters")
                            .path("route:azure-west/" + WEST_DEPLOYMENT)
                            .asLong())
                    .as("every interactive call fell through to the west region\n%s", s)
                    .isEqualTo(12);
            assertThat(attempts.values())
                    .as("attempts per logical call across both regions: at most retry.maxAttempts")
                    .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
            assertThat(batch.path("counters").path("status:503:none").asLong())
                    .as("a class without fallback never falls back: batch gets the primary's 503\n%s", s)
                    .isEqualTo(3);
            assertThat(west.ledger().exchanges()).hasSize(12);
        }
    }

    @Test
    void anAnthropicPrimaryAnswering529FallsThroughWithTheRoutesOwnKey() throws Exception {
        try (Simulator east = Simulator.builder()
                        .profile(Profile.ANTHROPIC)
                        .requestsPerMinute(6_000)
                        .instant()
                        .start();
                Simulator west = Simulator.builder()
                        .profile(Profile.ANTHROPIC)
                        .requestsPerMinute(6_000)
                        .instant()
                        .start()) {
            east.faults().always(FaultKind.OVERLOAD);
            // a configured provider limit: no slow start, so every call tries the east first
            String limit = ", limits: [{dimension: requests, capacity: 1000, window: 1m}]";
            String yaml = "providers:\n"
                    + "  - {name: anthropic-east, kind: anthropic, match: {urls: [\"" + east.baseUrl() + "/\"]}"
                    + limit + "}\n"
                    + "  - {name: anthropic-west, kind: anthropic, match: {urls: [\"" + west.baseUrl() + "/\"]}"
                    + limit + "}\n"
                    + "fallbacks:\n"
                    + "  - from: anthropic-east\n"
                    + "    classes: [default]\n"
                    + "    routes: [{to: anthropic-west, apiKeyEnv: ANTHROPIC_WEST_KEY}]\n"
                    + "retry: {maxAttempts: 2}\n";
            JsonNode s = ForkedApp.of(SdkCallsApp.class)
                    .timeout(Duration.ofSeconds(120))
                    .env("ANTHROPIC_WEST_KEY", "sk-ant-west")
                    .withAgent(SluiceYaml.agentOptions(yaml))
                    .args("anthropic", east.baseUrl(), 3, 3, "-")
                    .run()
                    .assertOk()
                    .summary();
            Map<String, Integer> attempts = new HashMap<>(east.ledger().attemptsPerCall());
            west.ledger().attemptsPerCall().forEach((id, n) -> attempts.merge(id, n, Integer::sum));
            System.out.printf(
                    "anthropic-java, primary answering 529: %s%n  east requests %d (status %s), west requests %d,"
                            + " attempts per call max %d%n",
                    s,
                    east.ledger().exchanges().size(),
                    east.ledger().exchanges().stream()
                            .map(Exchange::status)
                            .distinct()
                            .toList(),
                    west.ledger().exchanges().size(),
                    attempts.values().stream().mapToInt(Integer::intValue).max().orElse(0));
            assertThat(s.path("completed").asLong())
                    .as("every call answered by the west\n%s", s)
                    .isEqualTo(9);
            assertThat(east.ledger().exchanges())
                    .hasSize(9)
                    .allSatisfy(e -> assertThat(e.status()).isEqualTo(529));
            assertThat(west.ledger().exchanges()).hasSize(9).allSatisfy(e -> {
                assertThat(e.apiKey()).as("x-api-key rewritten").isEqualTo("sk-ant-west");
                assertThat(e.status()).isEqualTo(200);
            });
            assertThat(attempts.values()).allSatisfy(n -> assertThat(n).isEqualTo(2));
        }
    }

    @Test
    void theJdkHttpClientMovesCallsToo() throws Exception {
        try (Simulator east = region();
                Simulator west = region()) {
            east.faults().always(FaultKind.OVERLOAD);
            Path body = Files.createTempFile("sluice-fallback-", ".json");
            body.toFile().deleteOnExit();
            Files.writeString(
                    body,
                    "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],"
                            + "\"max_tokens\":16}");
            String url = LoopbackHosts.url(
                    EAST, east.port(), "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21");
            JsonNode s = ForkedApp.of(JdkHttpApp.class)
                    .timeout(Duration.ofSeconds(120))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(EAST, WEST))
                    .env("AZURE_WEST_API_KEY", "west-key")
                    .withAgent(SluiceYaml.agentOptions(config(east, 100, west, "retry: {maxAttempts: 2}\n")))
                    .args(url, 4, 3, body, "api-key=east-key;X-Sluice-Class=interactive", "-", "async")
                    .run()
                    .assertOk()
                    .summary();
            System.out.printf(
                    "JDK HttpClient (2 threads send, 2 sendAsync), primary answering 503: %s%n"
                            + "  east requests %d, west requests %d%n",
                    s,
                    east.ledger().exchanges().size(),
                    west.ledger().exchanges().size());
            assertThat(s.path("counters").path("status:200").asLong())
                    .as("every call served by the west region\n%s", s)
                    .isEqualTo(12);
            assertThat(east.ledger().exchanges())
                    .as("one attempt each in the east")
                    .hasSize(12);
            assertThat(west.ledger().exchanges()).hasSize(12).allSatisfy(e -> {
                assertThat(e.apiKey()).isEqualTo("west-key");
                assertThat(e.path()).startsWith("/openai/deployments/" + WEST_DEPLOYMENT + "/chat/completions");
            });
        }
    }
}
