package dev.sluice.it.fairness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.apps.TenantsApp;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.it.harness.Table;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * End to end, the scenarios of {@code FairnessScenarioTest} (core, fake clock) again with
 * the agent in a forked openai-java service against the simulator. One provider limit of 2 000
 * tokens a second (a call of 100 tokens: 20 calls a second) is shared by tenants named in
 * {@code X-Sluice-Tenant}; shares are read off the simulator's ledger (tokens of the calls it
 * admitted in a measurement window), admission waits from the calls' start times in the app and
 * their arrival in the ledger. A call takes about 200 ms (100 ms at the simulator), so 3 callers
 * offer about 15 calls a second: each scenario offers 2 to 12 times the limit.
 */
@Isolated
class FairnessIT {

    static final long TOKENS_PER_SECOND = 2_000;

    private static final Table TABLE =
            new Table("scenario", "setup", "window", "admitted tokens per tenant", "figure", "target");

    /** What one run of the tenants app left in the simulator's ledger. */
    private record Run(Instant t0, List<Exchange> exchanges, JsonNode summary) {

        /** Tokens (input + output) the simulator admitted per tenant between these seconds after t0. */
        Map<String, Long> tokens(double fromSecond, double toSecond, String... tenants) {
            Instant from = t0.plusMillis((long) (fromSecond * 1000));
            Instant to = t0.plusMillis((long) (toSecond * 1000));
            Map<String, Long> m = new LinkedHashMap<>();
            for (String t : tenants) {
                m.put(t, 0L);
            }
            for (Exchange e : exchanges) {
                if (e.admitted()
                        && !e.admittedAt().isBefore(from)
                        && e.admittedAt().isBefore(to)) {
                    m.merge(e.tenant(), e.inputTokens() + e.outputTokens(), Long::sum);
                }
            }
            return m;
        }

        JsonNode tenant(String name) {
            return summary.at("/groups/" + name);
        }
    }

    private static Run run(String config, long seconds, String... tenants) throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .limit(Dimension.TOKENS, TOKENS_PER_SECOND, Duration.ofSeconds(1))
                .outputTokens(1_000)
                .firstByteLatency(Duration.ofMillis(100))
                .latencyPerToken(Duration.ZERO)
                .start()) {
            String yaml = "providers:\n"
                    + "  - name: sim-openai\n"
                    + "    kind: openai\n"
                    + "    match:\n"
                    + "      urls: [\"" + sim.baseUrl() + "/\"]\n"
                    + "    learnFromHeaders: false\n"
                    + "    limits:\n"
                    + "      - dimension: total_tokens\n"
                    + "        capacity: " + TOKENS_PER_SECOND + "\n"
                    + "        window: 1s\n"
                    + config;
            List<Object> args = new ArrayList<>(List.of(sim.apiBaseUrl(), seconds));
            args.addAll(List.of(tenants));
            ForkedApp.Result r = ForkedApp.of(TenantsApp.class)
                    .args(args.toArray())
                    .withAgent(SluiceYaml.agentOptions(yaml))
                    .timeout(Duration.ofSeconds(seconds + 90))
                    .run()
                    .assertOk();
            JsonNode s = r.summary();
            assertThat(s.at("/counters/unfinished").asLong()).isZero();
            return new Run(
                    Instant.ofEpochMilli(s.at("/notes/t0").asLong()),
                    sim.ledger().exchanges(),
                    s);
        }
    }

    static double jain(Map<String, Long> shares) {
        double sum = 0;
        double squares = 0;
        for (long v : shares.values()) {
            sum += v;
            squares += (double) v * v;
        }
        return sum * sum / (shares.size() * squares);
    }

    static double percentOf(Map<String, Long> shares, String tenant) {
        long total = shares.values().stream().mapToLong(Long::longValue).sum();
        return 100.0 * shares.get(tenant) / total;
    }

    @Test
    void fourEqualTenantsShareASaturatedLimitEvenly() throws Exception {
        Run r = run("", 11, "a:batch:3:100:0", "b:batch:3:100:0", "c:batch:3:100:0", "d:batch:3:100:0");
        Map<String, Long> shares = r.tokens(3, 11, "a", "b", "c", "d");
        double index = jain(shares);
        TABLE.row(
                "a. four equal tenants",
                "3 callers each",
                "3-11 s",
                shares,
                String.format("Jain %.4f", index),
                ">= 0.99");
        assertThat(index).as("Jain's index over %s", shares).isGreaterThanOrEqualTo(0.99);
    }

    @Test
    void oneTenantOfferingEightTimesTheLoadGetsNoMoreThanItsShare() throws Exception {
        Run r = run("", 11, "heavy:batch:24:100:0", "b:batch:3:100:0", "c:batch:3:100:0", "d:batch:3:100:0");
        Map<String, Long> shares = r.tokens(3, 11, "heavy", "b", "c", "d");
        double index = jain(shares);
        TABLE.row(
                "a. one tenant offering 8x",
                "24:3:3:3 callers",
                "3-11 s",
                shares,
                String.format("Jain %.4f", index),
                ">= 0.99");
        assertThat(index).as("Jain's index over %s", shares).isGreaterThanOrEqualTo(0.99);
    }

    @Test
    void weightsThreeToOneGiveSharesOfSeventyFiveAndTwentyFive() throws Exception {
        Run r = run(
                "tenants:\n  - name: gold\n    weight: 3\n  - name: bronze\n    weight: 1\n",
                11,
                "gold:batch:8:100:0",
                "bronze:batch:8:100:0");
        Map<String, Long> shares = r.tokens(3, 11, "gold", "bronze");
        double gold = percentOf(shares, "gold");
        TABLE.row(
                "b. weights 3:1",
                "8 callers each",
                "3-11 s",
                shares,
                String.format("%.1f / %.1f %%", gold, 100 - gold),
                "75 / 25 +- 3");
        assertThat(gold).as("gold's share of %s", shares).isBetween(72.0, 78.0);
    }

    @Test
    void anInteractiveTenantWithinItsGuaranteeIsServedFastWhileBatchSaturates() throws Exception {
        // batch: 12 callers of 400-token calls, far more than the limit; interactive: a 150-token
        // call every 500 ms = 300 tokens/s, within its guaranteed 20 % (400 tokens/s)
        Run r = run(
                "tenants:\n  - name: assistant\n    guaranteedShare: 0.2\n  - name: reports\n",
                12,
                "reports:batch:12:400:0",
                "assistant:interactive:1:150:2:500");
        List<Long> waits = new ArrayList<>();
        JsonNode notes = r.summary.get("notes");
        for (Exchange e : r.exchanges) {
            JsonNode start = e.callId() == null ? null : notes.get("start." + e.callId());
            if (start != null && "assistant".equals(e.tenant())) {
                waits.add(Duration.between(Instant.ofEpochMilli(start.asLong()), e.arrivedAt())
                        .toMillis());
            }
        }
        Collections.sort(waits);
        long p99 = waits.isEmpty() ? 0 : waits.get((int) Math.ceil(0.99 * waits.size()) - 1);
        JsonNode assistant = r.tenant("assistant");
        long misses =
                assistant.get("calls").asLong() - assistant.get("completed").asLong();
        Map<String, Long> shares = r.tokens(2, 12, "reports", "assistant");
        TABLE.row(
                "c. batch saturating, interactive within its guarantee",
                "12 batch callers x 400 tokens;" + " 150 tokens every 500 ms interactive (guarantee 20 %)",
                "2-12 s",
                shares,
                String.format(
                        "interactive p99 wait %d ms (max %d), %d calls, %d deadline misses",
                        p99, waits.isEmpty() ? 0 : waits.get(waits.size() - 1), waits.size(), misses),
                "p99 <= 300 ms, 0 misses");
        assertThat(misses).as("interactive calls rejected: %s", assistant).isZero();
        assertThat(waits).hasSizeGreaterThanOrEqualTo(18);
        assertThat(p99).as("interactive admission waits %s", waits).isLessThanOrEqualTo(300);
        // and batch still gets the rest of the limit (2 000/s less the interactive 300/s, in ledger tokens)
        assertThat(shares.get("reports")).isGreaterThan(10 * 1_000);
    }

    @Test
    void anIdleTenantsShareGoesToOthersAndComesBackWithinOneRefillPeriod() throws Exception {
        Run r = run("", 14, "busy:batch:8:100:0", "sleeper:batch:8:100:6");
        Map<String, Long> alone = r.tokens(2, 6, "busy", "sleeper");
        // the simulator's ledger counts the tokens used (about 115 a call) where the limit counts
        // the 100 reserved: compare calls, 20 a second
        long busyCalls = r.exchanges.stream()
                .filter(e -> e.admitted()
                        && "busy".equals(e.tenant())
                        && !e.admittedAt().isBefore(r.t0.plusSeconds(2))
                        && e.admittedAt().isBefore(r.t0.plusSeconds(6)))
                .count();
        // the sleeper wakes at 6 s; one refill period (the 1 s window) later both get half
        Map<String, Long> after = r.tokens(7, 14, "busy", "sleeper");
        double sleeper = percentOf(after, "sleeper");
        TABLE.row(
                "d. idle share used, then given back",
                "8 callers each; sleeper starts at 6 s",
                "2-6 s",
                alone,
                String.format("busy alone: %d calls in 4 s", busyCalls),
                "~80 (20/s)");
        TABLE.row(
                "d. idle share used, then given back",
                "",
                "7-14 s",
                after,
                String.format("%.1f / %.1f %%", 100 - sleeper, sleeper),
                "50 / 50 +- 3");
        assertThat(busyCalls)
                .as("the busy tenant uses the whole limit while the other is idle")
                .isBetween(70L, 82L);
        assertThat(sleeper).as("the sleeper's share after waking, %s", after).isBetween(47.0, 53.0);
    }

    @AfterAll
    static void printTable() {
        if (!TABLE.isEmpty()) {
            System.out.printf(
                    "%nEnd to end: tenants sharing a limit of %d tokens/s through the agent"
                            + " (figures for docs/scenarios.md)%n%s%n",
                    TOKENS_PER_SECOND, TABLE);
        }
    }
}
