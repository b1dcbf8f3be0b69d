package dev.sluice.it.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.store.RedisServer;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Three JVMs, each with the agent, share one provider quota through a real Redis: together they
 * respect it as if one governor admitted every call, keep every call when Redis goes away and
 * comes back, and get back the slots of an instance that dies mid-stream.
 */
@Isolated
class FleetIT {

    /** The provider's limit: requests per one-second fixed window (exact to count per window). */
    private static final int CAPACITY = 30;

    private static final boolean WITHOUT_STORE = Boolean.getBoolean("fleet.withoutStore");

    private static Path config(RedisServer redis, String providerLimits, String maxWait) throws Exception {
        Path file = Files.createTempFile("sluice-fleet-", ".yaml");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        // -Dfleet.withoutStore=true: the baseline, each JVM alone (figures only, the test fails)
                        WITHOUT_STORE ? "" : "store:",
                        WITHOUT_STORE ? "" : "  url: " + redis.url(),
                        WITHOUT_STORE ? "" : "  leaseChunk: 0.05",
                        "providers:",
                        "  - name: openai",
                        "    kind: openai",
                        "    match: {hosts: 127.0.0.1}",
                        // the simulator's OpenAI headers announce its one-second limit as OpenAI's per-minute
                        // ones: the configured limit is the model here (learned limits are shared in core tests)
                        "    learnFromHeaders: false",
                        "    limits:",
                        providerLimits,
                        "trafficClasses:",
                        // the built-in default class lets a call through once its wait is over (never fail a
                        // call the SDK would have made): at 3x the limit the fleet must say no instead
                        "  - {name: default, maxWait: " + maxWait + ", overloadAction: reject}",
                        ""));
        return file;
    }

    private static ForkedApp instance(Path config, Object... args) {
        return ForkedApp.of(FleetChatApp.class)
                .withAgent("config=" + config)
                .args(args)
                .timeout(Duration.ofMinutes(2));
    }

    /** Exchanges per second of arrival at the provider: {arrivals, admitted}. */
    private static Map<Long, long[]> windows(List<Exchange> exchanges) {
        Map<Long, long[]> windows = new TreeMap<>();
        for (Exchange e : exchanges) {
            long[] w = windows.computeIfAbsent(e.arrivedAt().toEpochMilli() / 1000, k -> new long[2]);
            w[0]++;
            if (e.admitted()) {
                w[1]++;
            }
        }
        return windows;
    }

    /** Which of the provider's limits refused, and how often (a refusal names its limit). */
    private static Map<String, Long> refusedBy(List<Exchange> exchanges) {
        Map<String, Long> counts = new TreeMap<>();
        for (Exchange e : exchanges) {
            if (!e.admitted()) {
                counts.merge(String.valueOf(e.refusedBy()), 1L, Long::sum);
            }
        }
        return counts;
    }

    private static String perWindow(Map<Long, long[]> windows) {
        StringBuilder line = new StringBuilder();
        windows.values().forEach(w -> line.append(' ').append(w[1]).append('/').append(w[0]));
        return line.toString();
    }

    /** The provider: {@link #CAPACITY} requests per one-second fixed window. */
    private static Simulator providerWithOneSecondWindows() throws Exception {
        return Simulator.builder()
                .profile(Profile.OPENAI)
                .limit(Limit.of(Dimension.REQUESTS, CAPACITY, Duration.ofSeconds(1))
                        .fixedWindow())
                .firstByteLatency(Duration.ofMillis(20))
                .start();
    }

    /**
     * Three instances mirroring the provider's limit in the shared store, each running {@code args};
     * with {@code awaitGo} each waits after its warm-up call for {@link #go}.
     */
    private static List<ForkedApp.Running> startThree(
            RedisServer redis, String maxWait, boolean awaitGo, Object... args) throws Exception {
        Path config = config(
                redis,
                "      - {dimension: requests, capacity: " + CAPACITY + ", window: 1s, algorithm: fixed_window}",
                maxWait);
        List<ForkedApp.Running> fleet = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            fleet.add(instance(config, args)
                    .systemProperty("fleet.awaitGo", String.valueOf(awaitGo))
                    .start());
        }
        return fleet;
    }

    /**
     * Starts the load of every instance once all are warm, and returns when. A cold JVM's first
     * call can take longer from admission to the provider than the last tenth of a one-second
     * window (where a mirrored window stops admitting): an instance still warming up while the
     * others are at full load would add its late warm-up call to a full window. A busy service is
     * warm, and that is what the fleet test measures; the README's limitations say the rest.
     */
    private static Instant go(List<ForkedApp.Running> fleet) throws Exception {
        awaitReady(fleet, Duration.ofSeconds(60));
        Instant go = Instant.now();
        for (ForkedApp.Running r : fleet) {
            r.sendLine("GO");
        }
        return go;
    }

    /** Waits until every instance has made its warm-up call (it prints READY then). */
    private static void awaitReady(List<ForkedApp.Running> fleet, Duration atMost) {
        for (ForkedApp.Running r : fleet) {
            await().atMost(atMost).until(() -> r.stdoutSoFar().contains("READY"));
        }
    }

    @Test
    void threeInstancesAtThreeTimesTheProviderLimitStayUnderItAndUseIt() throws Exception {
        try (RedisServer redis = RedisServer.start();
                Simulator sim = providerWithOneSecondWindows()) {
            // each instance alone offers the whole limit: the fleet offers three times it
            List<ForkedApp.Running> fleet = startThree(redis, "1s", true, sim.apiBaseUrl(), CAPACITY, 8, 48);
            Instant loadStarted = go(fleet);
            long completed = 0;
            long storeCalls = 0;
            for (ForkedApp.Running r : fleet) {
                JsonNode s = r.awaitExit(Duration.ofMinutes(2)).assertOk().summary();
                System.out.println("FIGURES instance " + s);
                completed += s.get("completed").asLong();
                storeCalls += s.get("counters").path("storeCalls").asLong();
            }
            List<Exchange> exchanges = sim.ledger().exchanges();
            long arrivals = exchanges.size();
            long rejected = sim.ledger().counts().rejected();
            Map<Long, long[]> windows = windows(exchanges);
            long maxArrivals =
                    windows.values().stream().mapToLong(w -> w[0]).max().orElse(0);
            // goodput over the load's windows, the first and last partly empty: the warm-ups came before
            List<long[]> loadWindows = new ArrayList<>(windows(exchanges.stream()
                            .filter(e -> !e.arrivedAt().isBefore(loadStarted))
                            .collect(Collectors.toList()))
                    .values());
            List<long[]> steady = loadWindows.subList(1, Math.max(1, loadWindows.size() - 1));
            double goodput = steady.stream().mapToLong(w -> w[1]).average().orElse(0) / CAPACITY;
            System.out.printf(
                    "FIGURES fleet=3 offered=3x attempts=%d provider429=%d (%.2f%%) maxPerWindow=%d/%d"
                            + " goodput=%.1f%% completed=%d storeCallsPerAdmission=%.3f%n",
                    arrivals,
                    rejected,
                    100.0 * rejected / arrivals,
                    maxArrivals,
                    CAPACITY,
                    100 * goodput,
                    completed,
                    (double) storeCalls / Math.max(1, sim.ledger().counts().admitted()));
            System.out.println("FIGURES admitted/attempts per window:" + perWindow(windows));
            assertThat(rejected).as("provider 429s").isLessThanOrEqualTo(arrivals / 100);
            assertThat(maxArrivals).as("attempts in any window").isLessThanOrEqualTo((long) (CAPACITY * 1.02));
            assertThat(goodput).as("goodput in full windows").isGreaterThanOrEqualTo(0.9);
        }
    }

    @Test
    void redisStoppedMidRunLosesNoCallAndEveryInstanceFallsBackAndReturns() throws Exception {
        try (RedisServer redis = RedisServer.start();
                Simulator sim = providerWithOneSecondWindows()) {
            List<ForkedApp.Running> fleet = startThree(redis, "60s", false, sim.apiBaseUrl(), 8, 14, 16);
            awaitReady(fleet, Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> sim.ledger().counts().admitted() >= 40);
            redis.stop();
            await().pollDelay(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(4))
                    .until(() -> true);
            redis.startAgain();
            List<ForkedApp.Result> results = new ArrayList<>();
            for (ForkedApp.Running r : fleet) {
                results.add(r.awaitExit(Duration.ofMinutes(2)).assertOk());
            }
            System.out.printf(
                    "FIGURES outage: attempts=%d provider429=%d per window:%s refused by:%s%n",
                    sim.ledger().counts().arrivals(),
                    sim.ledger().counts().rejected(),
                    perWindow(windows(sim.ledger().exchanges())),
                    refusedBy(sim.ledger().exchanges()));
            for (ForkedApp.Result result : results) {
                JsonNode s = result.summary();
                System.out.println("FIGURES instance " + s);
                assertThat(s.get("completed").asLong())
                        .as("no call lost: %s", s)
                        .isEqualTo(s.get("calls").asLong());
                assertThat(result.stderr).contains("unreachable").contains("answers again");
                assertThat(s.get("counters").path("storeFallbacks").asLong())
                        .as("JMX Fallbacks")
                        .isGreaterThanOrEqualTo(1);
                assertThat(s.get("counters").path("storeRecoveries").asLong())
                        .as("JMX Recoveries")
                        .isGreaterThanOrEqualTo(1);
            }
            assertThat(sim.ledger().counts().rejected())
                    .isLessThanOrEqualTo(sim.ledger().counts().arrivals() / 50);
        }
    }

    @Test
    void anInstanceKilledMidStreamGivesItsSlotsBackToTheOthers() throws Exception {
        try (RedisServer redis = RedisServer.start();
                Simulator sim = Simulator.builder()
                        .profile(Profile.OPENAI)
                        .requestsPerMinute(6_000)
                        .tokensPerMinute(1_000_000)
                        .latencyPerToken(Duration.ofMillis(400))
                        .start()) {
            // slots are only ever freed by releases or by expiry: without expiry the survivor would wait past 5 s
            Path config = config(redis, "      - {dimension: concurrency, capacity: 4}", "5s");
            ForkedApp.Running doomed =
                    instance(config, sim.apiBaseUrl(), 100, 0.04, 4, "stream").start();
            await().atMost(Duration.ofSeconds(30)).until(() -> sim.ledger().inFlight() >= 4);
            doomed.kill();
            doomed.awaitExit(Duration.ofSeconds(10));
            long start = System.nanoTime();
            ForkedApp.Result survivor = instance(config, sim.apiBaseUrl(), 100, 0.04, 4, "stream")
                    .run()
                    .assertOk();
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            JsonNode s = survivor.summary();
            System.out.printf(
                    "FIGURES kill: survivor completed %d of %d in %d ms%n",
                    s.get("completed").asLong(), s.get("calls").asLong(), elapsedMillis);
            assertThat(s.get("completed").asLong()).as("%s", s).isEqualTo(4);
        }
    }
}
