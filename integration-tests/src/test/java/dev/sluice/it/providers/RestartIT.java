package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Scope;
import dev.sluice.simulator.Simulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A service restarted in the middle of a window (the fixed-window gateway: 10 calls a key a
 * minute, no headers) must not hand itself a fresh window: the JVM that comes back restores the
 * window's count from the state file its predecessor wrote at exit, and the provider never sees
 * more than its limit in that window. Without the state file the restarted JVM sends a second
 * window's worth, and the gateway refuses it.
 */
class RestartIT {

    private static final int LIMIT = 10;
    private static final int CALLS_PER_RUN = 8;

    private static Simulator gateway() {
        return Simulator.builder()
                .profile(Profile.GATEWAY)
                .limit(Limit.of(Dimension.REQUESTS, LIMIT, Duration.ofMinutes(1))
                        .fixedWindow()
                        .scope(Scope.API_KEY)
                        .named("key_chat"))
                .firstByteLatency(Duration.ofMillis(5))
                .start();
    }

    /**
     * Two runs of one service against one gateway; how many calls the gateway refused, or -1 when
     * the runs straddled the turn of a window (the gateway's windows are whole minutes of the clock),
     * which says nothing either way.
     */
    private static long twoRuns(String stateFile) throws Exception {
        long window = System.currentTimeMillis() / 60_000;
        try (Simulator sim = gateway()) {
            String base = "http://127.0.0.1:" + sim.port() + "/v1/";
            String config = ProviderRuns.file(
                    ".yaml",
                    "providers:",
                    "  - name: llm-gateway",
                    "    kind: fixed-window-gateway",
                    "    match: {urls: [\"" + base + "\"]}",
                    "    learnFromHeaders: false",
                    "    limits:",
                    "      - {dimension: requests, capacity: " + LIMIT + ", window: 1m, algorithm: fixed_window,"
                            + " level: api_key}",
                    "trafficClasses:",
                    "  - {name: default, maxWait: 300ms, overloadAction: reject}");
            for (int run = 0; run < 2; run++) {
                ProviderRuns.jdkHttp(
                                base + "chat/completions",
                                1,
                                CALLS_PER_RUN,
                                ProviderRuns.CHAT_BODY,
                                "Authorization=Bearer gw-key",
                                null)
                        .withAgent("config=" + config)
                        .systemProperty("sluice.stateFile", stateFile)
                        .run()
                        .assertOk();
            }
            long refused = sim.ledger().counts().rejected();
            System.out.printf(
                    "restart mid-window, state file %s: gateway saw %s%n",
                    stateFile, sim.ledger().counts());
            if (System.currentTimeMillis() / 60_000 != window) {
                return -1; // a new window began between the runs: the gateway rightly let more through
            }
            assertThat(sim.ledger().counts().arrivals() - refused)
                    .as("calls the gateway let through")
                    .isLessThanOrEqualTo(LIMIT);
            return refused;
        }
    }

    @Test
    void aRestartedJvmContinuesTheWindowItsPredecessorCounted() throws Exception {
        Path dir = Files.createTempDirectory("sluice-restart-");
        dir.toFile().deleteOnExit();
        long withState = -1;
        long withoutState = -1;
        for (int tries = 0; tries < 3 && (withState < 0 || withoutState < 0); tries++) {
            if (withState < 0) {
                Files.deleteIfExists(dir.resolve("service.state.json"));
                withState = twoRuns(dir.resolve("service.state.json").toString());
            }
            if (withoutState < 0) {
                withoutState = twoRuns("off");
            }
        }
        assertThat(withoutState)
                .as("without the state file the second run overruns the window")
                .isPositive();
        assertThat(withState).as("with it, the gateway refuses nothing").isZero();
    }
}
