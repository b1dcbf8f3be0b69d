package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Scope;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The AWS SDK for Java 2.59 (bedrockruntime), sync Converse on the Apache client (adaptive retry
 * mode) and async ConverseStream on Netty (standard retry mode, the default), against the simulator's Bedrock profile under Bedrock's own
 * host name ({@link LoopbackHosts}: the SDK's endpoint is {@code http://bedrock-runtime.us-east-1
 * .amazonaws.com:<port>}, which Sluice recognises by its host with no match). The simulator reads
 * the SigV4 credential, does not verify the signature, and counts attempts per logical call by
 * the {@code x-sim-call-id} each call signs in.
 */
class BedrockIT {

    static final String HOST = "bedrock-runtime.us-east-1.amazonaws.com";
    static final String MODEL = BedrockApp.MODEL;
    /** The configured quota: requests a second for the model in this region. */
    static final int QUOTA = 5;

    /**
     * A quota of {@value #QUOTA} requests a second configured for the model in us-east-1 (the
     * provider's is one more: a configured bucket runs ahead of the provider's after idle,
     * docs/providers.md), and 12 callers (6 sync threads, 6 streams at a time), each of which
     * alone could send about 20 calls a second. With the agent: every call completes, every one
     * governed, at most 1 % of the provider's answers are 429s, no logical call takes more
     * attempts than Sluice's retry policy allows, and the SDK's own retry strategy stood aside for
     * every governed call. Without it: the same load meets the provider's 429s and the SDK's
     * retries.
     */
    @Test
    void aQuotaPerModelAndRegionPacesSyncAndStreamingCalls() throws Exception {
        JsonNode with = run(true);
        JsonNode without = run(false);
        assertThat(without.path("sim.rejected").asLong())
                .as("provider 429s without the agent, the same load")
                .isGreaterThan(with.path("sim.rejected").asLong());
    }

    private static JsonNode run(boolean agent) throws Exception {
        int threads = 6;
        int calls = 4;
        int streams = 6;
        try (Simulator sim = Simulator.builder()
                .profile(Profile.BEDROCK)
                .limit(Limit.of(Dimension.REQUESTS, QUOTA + 4, Duration.ofSeconds(1))
                        .scope(Scope.API_KEY_AND_MODEL))
                .firstByteLatency(Duration.ofMillis(20))
                .latencyPerToken(Duration.ofMillis(1))
                .outputTokens(16)
                .start()) {
            String yaml = "providers:\n"
                    + "  - name: bedrock-us-east-1\n"
                    + "    kind: bedrock\n"
                    + "    match:\n"
                    + "      hosts: [" + HOST + "]\n"
                    + "    limits:\n"
                    + "      - {dimension: requests, capacity: " + QUOTA + ", window: 1s, models: [\"" + MODEL
                    + "\"]}\n";
            ForkedApp app = ForkedApp.of(BedrockApp.class)
                    .timeout(Duration.ofSeconds(150))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .args(LoopbackHosts.url(HOST, sim.port(), ""), threads, calls, streams);
            if (agent) {
                app.withAgent(SluiceYaml.agentOptions(yaml));
            }
            ForkedApp.Result r = app.run().assertOk();
            JsonNode s = r.summary();
            Counts c = sim.ledger().counts();
            Map<String, Integer> perCall = sim.ledger().attemptsPerCall();
            int maxAttempts = perCall.isEmpty() ? 0 : Collections.max(perCall.values());
            long logical = 2L * threads * calls;
            JsonNode counters = s.path("counters");
            System.out.printf(
                    "bedrock, %d calls (%d Converse on Apache, %d ConverseStream on Netty), quota %d/s, %s the agent:"
                            + " %s%n  max attempts per call %d, SDK attempts %d, %d ms (%.1f attempts/s)%n  %s%n",
                    logical,
                    threads * calls,
                    threads * calls,
                    QUOTA,
                    agent ? "with" : "without",
                    c,
                    maxAttempts,
                    counters.path("sdk.attempts").asLong(),
                    s.path("elapsedMillis").asLong(),
                    1000.0 * c.arrivals() / Math.max(1, s.path("elapsedMillis").asLong()),
                    s);
            if (agent) {
                assertThat(s.path("completed").asLong())
                        .as("every call completed\n%s", s)
                        .isEqualTo(logical);
                assertThat(counters.path("converse.complete").asLong()).isEqualTo((long) threads * calls);
                assertThat(counters.path("streams.complete").asLong())
                        .as("every stream read to its metadata event\n%s", s)
                        .isEqualTo((long) threads * calls);
                assertThat(counters.path("jmx:bedrock-us-east-1:Calls").asLong())
                        .as("every call governed\n%s", s)
                        .isEqualTo(logical);
                assertThat(100.0 * c.rejected() / c.arrivals())
                        .as("provider 429s, %% of its answers: %s", c)
                        .isLessThanOrEqualTo(1.0);
                assertThat(maxAttempts).as("attempts per logical call").isLessThanOrEqualTo(3);
                assertThat(counters.path("layer:aws-sdk-retry-strategy:passed").asLong())
                        .as("the SDK's retry strategy stood aside for every governed call\n%s", s)
                        .isEqualTo(logical);
                assertThat(c.admitted()).isEqualTo(logical);
            }
            ((com.fasterxml.jackson.databind.node.ObjectNode) s).put("sim.rejected", c.rejected());
            return s;
        }
    }

    /**
     * No config: Bedrock's answers carry no rate-limit headers, so Sluice knows its quota only from
     * its 429s and paces by them, as for Gemini. A hidden quota of 6 requests a second (5 at once)
     * under 6 callers (3 sync threads, 3 streams at a time): at most 10 % of the provider's answers
     * are 429s, every call completes.
     */
    @Test
    void aHiddenQuotaIsPacedFromItsRefusalsAlone() throws Exception {
        int threads = 3;
        int calls = 12;
        try (Simulator sim = Simulator.builder()
                .profile(Profile.BEDROCK)
                .limit(Limit.perMinute(Dimension.REQUESTS, 360).burst(5).scope(Scope.API_KEY_AND_MODEL))
                .firstByteLatency(Duration.ofMillis(20))
                .latencyPerToken(Duration.ofMillis(1))
                .outputTokens(16)
                .start()) {
            JsonNode s = ForkedApp.of(BedrockApp.class)
                    .withAgent((String) null)
                    .timeout(Duration.ofSeconds(150))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .args(LoopbackHosts.url(HOST, sim.port(), ""), threads, calls, threads)
                    .run()
                    .assertOk()
                    .summary();
            Counts c = sim.ledger().counts();
            System.out.printf("bedrock, hidden quota, no config, with the agent: %s%n  %s%n", c, s);
            assertThat(s.path("completed").asLong()).isEqualTo(2L * threads * calls);
            assertThat(s.at("/counters/layer:aws-sdk-retry-strategy:passed").asLong())
                    .as("recognised with no config: every call governed, the SDK's retries standing aside")
                    .isEqualTo(2L * threads * calls);
            assertThat(100.0 * c.rejected() / c.arrivals())
                    .as("provider 429s, %% of its answers: %s", c)
                    .isLessThanOrEqualTo(10.0);
        }
    }

    /**
     * A budget of a thousandth of a dollar on Bedrock's Claude 3 Haiku at Bedrock's list prices
     * ($0.25 and $1.25 per million input and output tokens), raced by 4 sync threads: what the
     * provider's token counts cost never passes the budget by more than one call's reservation
     * error; the calls it cannot cover get Bedrock's own {@code ServiceQuotaExceededException} at
     * once, which the SDK does not retry (one SDK attempt a call); Sluice's account of the spend
     * is the provider's.
     */
    @Test
    void aBudgetIsSpentAtBedrocksPricesAndRefusedInItsOwnShape() throws Exception {
        int threads = 4;
        int calls = 10;
        long inputPrice = 250_000; // micro-USD per million tokens: $0.25
        long outputPrice = 1_250_000; // $1.25
        try (Simulator sim = Simulator.builder()
                .profile(Profile.BEDROCK)
                .outputTokens(16)
                .instant()
                .start()) {
            String yaml = "prices:\n"
                    + "  - model: \"" + MODEL + "\"\n"
                    + "    provider: bedrock\n"
                    + "    input: 0.25\n"
                    + "    output: 1.25\n"
                    + "limits:\n"
                    + "  - id: bedrock-budget\n"
                    + "    dimension: spend\n"
                    + "    amount: 0.0002\n"
                    + "    period: day\n";
            JsonNode s = ForkedApp.of(BedrockApp.class)
                    .withAgent(SluiceYaml.agentOptions(yaml))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .args(LoopbackHosts.url(HOST, sim.port(), ""), threads, calls, 0, "bedrock-budget")
                    .run()
                    .assertOk()
                    .summary();
            Counts c = sim.ledger().counts();
            long billedPicoUsd = c.inputTokens() * inputPrice + c.outputTokens() * outputPrice; // micro-USD x 1e6
            double billed = billedPicoUsd / 1e12;
            long completed = s.path("completed").asLong();
            long refused = s.at("/counters/local:budget_exhausted").asLong();
            JsonNode notes = s.path("notes");
            System.out.printf(
                    "bedrock budget: %d calls, %d sent, billed %.8f USD of 0.0002; %d refused budget_exhausted;"
                            + " SDK attempts %d; Sluice's JMX: spent %s, reserved %s%n  %s%n",
                    threads * calls,
                    c.admitted(),
                    billed,
                    refused,
                    s.at("/counters/sdk.attempts").asLong(),
                    notes.path("jmx.Spent").asText(),
                    notes.path("jmx.Reserved").asText(),
                    s);
            assertThat(completed + refused)
                    .as("every call completed or was refused\n%s", s)
                    .isEqualTo(threads * calls);
            assertThat(refused).as("the budget ran out").isPositive();
            assertThat(completed).isEqualTo(c.admitted());
            assertThat(s.at("/counters/sdk.attempts").asLong())
                    .as("SDK attempts: no retry of a refusal")
                    .isEqualTo(threads * calls);
            double reservationError = (32 - 16) * outputPrice / 1e12;
            assertThat(billed).isLessThanOrEqualTo(0.0002 + reservationError + 1e-12);
            assertThat(Double.parseDouble(notes.path("jmx.Spent").asText()))
                    .as("Sluice's account of the spend is the provider's token counts at Bedrock's prices")
                    // each call's cost is counted in whole micro-dollars, rounded up
                    .isBetween(billed, billed + c.admitted() * 1e-6);
            assertThat(notes.path("jmx.UnpricedCalls").asLong()).isZero();
            assertThat(notes.path("local.exception").asText()).isEqualTo("ServiceQuotaExceededException");
            assertThat(notes.path("local.numAttempts").asText()).isEqualTo("1");
            assertThat(notes.path("local.body").asText()).contains("\"gateway_decision\":\"budget_exhausted\"");
        }
    }
}
