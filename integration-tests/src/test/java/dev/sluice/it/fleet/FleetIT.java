package dev.sluice.it.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Three JVMs, each with the agent, share one provider quota through a real Redis: together they
 * respect it as if one governor admitted every call, keep every call when Redis goes away and
 * comes back, and get back the slots of an instance that dies mid-stream.
 */
class FleetIT {

    /** The provider's limit: requests per one-second fixed window (exact to count per window). */
    private static final int CAPACITY = 30;

    private static final boolean WITHOUT_STORE = Boolean.getBoolean("fleet.withoutStore");

    private static Path config(RedisServer redis, String providerLimits, String maxWait) throws Exception {
        Path file = Files.createTempFile("sluice-fleet-", ".yaml");
        Files.writeString(file, String.join("\n",
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
        return ForkedApp.of(FleetChatApp.class).withAgent("config=" + config).args(args)
                .timeout(Duration.ofMinutes(2));
    }

    @Test
    void threeInstancesAtThreeTimesTheProviderLimitStayUnderItAndUseIt() throws Exception {
        try (RedisServer redis = RedisServer.start();
                Simulator sim = Simulator.builder().profile(Profile.OPENAI)
                        .limit(Limit.of(Dimension.REQUESTS, CAPACITY, Duration.ofSeconds(1)).fixedWindow())
                        .firstByteLatency(Duration.ofMillis(20)).start()) {
            Path config = config(redis, "      - {dimension: requests, capacity: " + CAPACITY
                    + ", window: 1s, algorithm: fixed_window}", "1s");
            List<ForkedApp.Running> fleet = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                // each instance alone offers the whole limit: the fleet offers three times it
                fleet.add(instance(config, sim.apiBaseUrl(), CAPACITY, 8, 48).start());
            }
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
            Map<Long, long[]> windows = new TreeMap<>(); // second -> {arrivals, admitted}
            for (Exchange e : exchanges) {
                long[] w = windows.computeIfAbsent(e.arrivedAt().toEpochMilli() / 1000, k -> new long[2]);
                w[0]++;
                if (e.admitted()) {
                    w[1]++;
                }
            }
            long maxArrivals = windows.values().stream().mapToLong(w -> w[0]).max().orElse(0);
            List<long[]> steady = new ArrayList<>(windows.values()).subList(1, Math.max(1, windows.size() - 1));
            double goodput = steady.stream().mapToLong(w -> w[1]).average().orElse(0) / CAPACITY;
            System.out.printf("FIGURES fleet=3 offered=3x attempts=%d provider429=%d (%.2f%%) maxPerWindow=%d/%d"
                            + " goodput=%.1f%% completed=%d storeCallsPerAdmission=%.3f%n", arrivals, rejected,
                    100.0 * rejected / arrivals, maxArrivals, CAPACITY, 100 * goodput, completed,
                    (double) storeCalls / Math.max(1, sim.ledger().counts().admitted()));
            StringBuilder perWindow = new StringBuilder();
            windows.values().forEach(w -> perWindow.append(' ').append(w[1]).append('/').append(w[0]));
            System.out.println("FIGURES admitted/attempts per window:" + perWindow);
            assertThat(rejected).as("provider 429s").isLessThanOrEqualTo(arrivals / 100);
            assertThat(maxArrivals).as("attempts in any window").isLessThanOrEqualTo((long) (CAPACITY * 1.02));
            assertThat(goodput).as("goodput in full windows").isGreaterThanOrEqualTo(0.9);
        }
    }

    @Test
    void redisStoppedMidRunLosesNoCallAndEveryInstanceFallsBackAndReturns() throws Exception {
        try (RedisServer redis = RedisServer.start();
                Simulator sim = Simulator.builder().profile(Profile.OPENAI)
                        .limit(Limit.of(Dimension.REQUESTS, CAPACITY, Duration.ofSeconds(1)).fixedWindow())
                        .firstByteLatency(Duration.ofMillis(20)).start()) {
            Path config = config(redis, "      - {dimension: requests, capacity: " + CAPACITY
                    + ", window: 1s, algorithm: fixed_window}", "60s");
            List<ForkedApp.Running> fleet = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                fleet.add(instance(config, sim.apiBaseUrl(), 8, 14, 16).start());
            }
            for (ForkedApp.Running r : fleet) {
                await().atMost(Duration.ofSeconds(30)).until(() -> r.stdoutSoFar().contains("READY"));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> sim.ledger().counts().admitted() >= 40);
            redis.stop();
            await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
            redis.startAgain();
            for (ForkedApp.Running r : fleet) {
                ForkedApp.Result result = r.awaitExit(Duration.ofMinutes(2)).assertOk();
                JsonNode s = result.summary();
                assertThat(s.get("completed").asLong()).as("no call lost: %s", s).isEqualTo(s.get("calls").asLong());
                assertThat(result.stderr).contains("unreachable").contains("answers again");
                assertThat(s.get("counters").path("storeFallbacks").asLong()).as("JMX Fallbacks").isGreaterThanOrEqualTo(1);
                assertThat(s.get("counters").path("storeRecoveries").asLong()).as("JMX Recoveries").isGreaterThanOrEqualTo(1);
            }
            System.out.printf("FIGURES outage: attempts=%d provider429=%d%n", sim.ledger().counts().arrivals(),
                    sim.ledger().counts().rejected());
            assertThat(sim.ledger().counts().rejected()).isLessThanOrEqualTo(sim.ledger().counts().arrivals() / 50);
        }
    }

    @Test
    void anInstanceKilledMidStreamGivesItsSlotsBackToTheOthers() throws Exception {
        try (RedisServer redis = RedisServer.start();
                Simulator sim = Simulator.builder().profile(Profile.OPENAI).requestsPerMinute(6_000)
                        .tokensPerMinute(1_000_000).latencyPerToken(Duration.ofMillis(400)).start()) {
            // slots are only ever freed by releases or by expiry: without expiry the survivor would wait past 5 s
            Path config = config(redis, "      - {dimension: concurrency, capacity: 4}", "5s");
            ForkedApp.Running doomed = instance(config, sim.apiBaseUrl(), 100, 0.04, 4, "stream").start();
            await().atMost(Duration.ofSeconds(30)).until(() -> sim.ledger().inFlight() >= 4);
            doomed.kill();
            doomed.awaitExit(Duration.ofSeconds(10));
            long start = System.nanoTime();
            ForkedApp.Result survivor = instance(config, sim.apiBaseUrl(), 100, 0.04, 4, "stream").run().assertOk();
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            JsonNode s = survivor.summary();
            System.out.printf("FIGURES kill: survivor completed %d of %d in %d ms%n", s.get("completed").asLong(),
                    s.get("calls").asLong(), elapsedMillis);
            assertThat(s.get("completed").asLong()).as("%s", s).isEqualTo(4);
        }
    }
}
