package dev.sluice.it.governor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.apps.OpenAiChatApp;
import dev.sluice.it.apps.OpenAiLocalRejectionApp;
import dev.sluice.it.apps.RawHttpApp;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.ForkedApp.Jdk;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.it.harness.Table;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real governor behind the agent, seen from applications. A configured limit
 * paces raw HTTP clients; a local rejection reaches the real openai-java SDK as its own
 * RateLimitException, decision readable, after one attempt; with no configuration at all the agent
 * learns a provider's limits from its headers and the SDK at its defaults meets (almost) no 429s.
 */
@Isolated
class RealGovernorIT {

    private static final Table TABLE = new Table(
            "check",
            "run",
            "requests at the simulator",
            "admitted",
            "provider 429s",
            "most in any 1 s",
            "median gap ms",
            "first to last arrival, s");

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "okhttp"})
    void aConfiguredTwoPerSecondLimitPacesARawHttpClient(String client) throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(100_000)
                .instant()
                .start()) {
            ForkedApp app = ForkedApp.of(RawHttpApp.class).args(sim.apiBaseUrl(), client, 2, 4);
            app.run().assertOk();
            List<Instant> unpaced = sim.ledger().query().arrivalTimes();
            row("2 req/s configured: raw " + client, "without agent", sim);
            sim.reset();

            app.withAgent(SluiceYaml.agentOptions(SluiceYaml.mirroredProvider("openai", sim.baseUrl(), 2, "1s")));
            JsonNode s = app.run().assertOk().summary();
            List<Instant> paced = sim.ledger().query().arrivalTimes();
            row("2 req/s configured: raw " + client, "with agent", sim);

            assertThat(maxInAnySecond(unpaced))
                    .as("the app offers more than 2 a second")
                    .isGreaterThan(3);
            assertThat(s.get("completed").asLong()).isEqualTo(8);
            assertThat(paced).hasSize(8);
            // The first call's own trip to the wire includes the JVM's cold start (class loading,
            // connecting) after its admission, so it may land next to the second; from then on a
            // 2/s bucket puts at most 3 calls in any second (what is left of its burst, then one
            // more), half a second apart.
            assertThat(maxInAnySecond(paced.subList(1, paced.size())))
                    .as("spacing %s", paced)
                    .isLessThanOrEqualTo(3);
            assertThat(medianGapMillis(paced)).as("spacing %s", paced).isGreaterThanOrEqualTo(400);
            assertThat(Duration.between(paced.get(0), paced.get(paced.size() - 1)))
                    .as("8 calls at 2 a second")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(2_500));
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aLocalRejectionReachesOpenAiJavaAsItsRateLimitExceptionAfterOneAttempt(Jdk jdk) throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(100_000)
                .instant()
                .start()) {
            // one request per 10 s: the second interactive call (300 ms at most in the queue) cannot wait
            JsonNode s = ForkedApp.of(OpenAiLocalRejectionApp.class)
                    .jdk(jdk)
                    .args(sim.apiBaseUrl())
                    .withAgent(SluiceYaml.agentOptions(SluiceYaml.mirroredProvider("openai", sim.baseUrl(), 1, "10s")))
                    .run()
                    .assertOk()
                    .summary();
            System.out.printf("local rejection as openai-java sees it (%s): %s%n", jdk, s.get("notes"));

            assertThat(s.get("completed").asLong()).isEqualTo(1);
            assertThat(s.at("/failures/RateLimitException").asLong()).isEqualTo(1);
            assertThat(s.at("/counters/local:rejected_locally").asLong()).isEqualTo(1);
            assertThat(s.at("/counters/attempts.call1").asLong()).isEqualTo(1);
            assertThat(s.at("/counters/attempts.call2").asLong())
                    .as("SDK attempts of the rejected call")
                    .isEqualTo(1);
            JsonNode notes = s.get("notes");
            assertThat(notes.get("exception").asText()).isEqualTo("com.openai.errors.RateLimitException");
            assertThat(notes.get("sluice.gateway_decision").asText()).isEqualTo("rejected_locally");
            assertThat(notes.get("sluice.traffic_class").asText()).isEqualTo("interactive");
            assertThat(notes.get("sluice.limiter").asText()).isEqualTo("requests");
            assertThat(notes.get("sluice.model").asText()).isEqualTo("gpt-4o-mini");
            assertThat(Double.parseDouble(notes.get("sluice.retry_after_ms").asText()))
                    .isBetween(1_000.0, 10_000.0);
            assertThat(sim.ledger().counts().arrivals())
                    .as("only the first call reached the provider")
                    .isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void withNoConfigTheAgentLearnsOpenAiLimitsFromHeaders(Jdk jdk) throws Exception {
        // 600 requests a minute, at most 10 at once: 10 a second, announced in x-ratelimit-* headers
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .limit(Limit.perMinute(Dimension.REQUESTS, 600).burst(10))
                .firstByteLatency(Duration.ofMillis(100))
                .latencyPerToken(Duration.ofMillis(2))
                .start()) {
            // the app calls api.openai.com itself (over plain HTTP to the simulator's port): recognised
            // by its host, as in production, with no configuration at all
            Path hosts = Files.createTempFile("sluice-hosts", "");
            Files.writeString(hosts, "127.0.0.1 api.openai.com\n");
            hosts.toFile().deleteOnExit();
            ForkedApp app = ForkedApp.of(OpenAiChatApp.class)
                    .jdk(jdk)
                    .systemProperty("jdk.net.hosts.file", hosts.toString())
                    .args("http://api.openai.com:" + sim.port() + "/v1", 5, 12);
            if (jdk == Jdk.JDK17) {
                app.run().assertOk();
                row("no config, limits from headers (" + jdk + ")", "without agent", sim);
                sim.reset();
            }
            ForkedApp.Result r = app.withAgent((String) null).run().assertOk();
            row("no config, limits from headers (" + jdk + ")", "with agent", sim);
            assertThat(r.startLine()).contains("config=defaults");
            assertThat(r.summary().get("completed").asLong()).isEqualTo(60);
            Counts c = sim.ledger().counts();
            assertThat(c.rejected())
                    .as("provider 429s of %d requests", c.arrivals())
                    .isLessThanOrEqualTo(1);
        }
    }

    private static void row(String check, String run, Simulator sim) {
        List<Instant> arrivals = sim.ledger().query().arrivalTimes();
        Counts c = sim.ledger().counts();
        double seconds = arrivals.size() < 2
                ? 0
                : Duration.between(arrivals.get(0), arrivals.get(arrivals.size() - 1))
                                .toMillis()
                        / 1000.0;
        TABLE.row(
                check,
                run,
                c.arrivals(),
                c.admitted(),
                c.rejected(),
                maxInAnySecond(arrivals),
                medianGapMillis(arrivals),
                String.format("%.1f", seconds));
    }

    static int maxInAnySecond(List<Instant> times) {
        List<Instant> sorted = new ArrayList<>(times);
        Collections.sort(sorted);
        int most = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (!sorted.get(from).plusSeconds(1).isAfter(sorted.get(to))) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }

    static long medianGapMillis(List<Instant> times) {
        List<Instant> sorted = new ArrayList<>(times);
        Collections.sort(sorted);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < sorted.size(); i++) {
            gaps.add(Duration.between(sorted.get(i - 1), sorted.get(i)).toMillis());
        }
        Collections.sort(gaps);
        return gaps.isEmpty() ? 0 : gaps.get(gaps.size() / 2);
    }

    @AfterAll
    static void printTable() {
        if (!TABLE.isEmpty()) {
            System.out.printf("%nThe real governor behind the agent (figures for docs/scenarios.md)%n%s%n", TABLE);
        }
    }
}
