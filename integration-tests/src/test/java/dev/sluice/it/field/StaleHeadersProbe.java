package dev.sluice.it.field;

import dev.sluice.it.field.FieldScenariosIT.Run;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.Table;
import dev.sluice.it.providers.LoopbackHosts;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Figures only, not part of {@code mvn verify} (the name does not end in IT): why scenario b's
 * streams met provider 429s in pairs in an earlier version. Scenario b's workload and limits
 * (40 calls, 24,000 tokens a minute, 2,000 at once), with the agent and no config, once per mode,
 * with a neighbour taking a share of the organization and the simulator's latencies chosen, so the
 * age of the {@code x-ratelimit-remaining-tokens} Sluice reads can be varied: a stream's headers
 * come at the first byte, a sync call's with the whole body. Prints each refused call's id and when
 * it arrived (the same id twice is a retry refused again). Run it against another agent jar with
 * {@code -Dsluice.agent.jar=...}:
 *
 * <pre>
 * mvn -B -o -pl integration-tests -am verify -Dit.test=StaleHeadersProbe -Dprobe.neighbour=0.4 \
 *     -Dprobe.firstByte=1000 -Dprobe.perToken=0 -Dprobe.modes=stream,sync -Dtest=none \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
 * </pre>
 */
class StaleHeadersProbe {

    @Test
    void printFigures() throws Exception {
        double neighbour = Double.parseDouble(System.getProperty("probe.neighbour", "0.4"));
        long firstByte = Long.getLong("probe.firstByte", 100);
        long perToken = Long.getLong("probe.perToken", 5);
        Table table = new Table(
                "mode",
                "first byte / per token",
                "neighbour",
                "calls ok",
                "attempts",
                "provider 429s",
                "refused (call id @ ms after first arrival)");
        for (String mode : System.getProperty("probe.modes", "stream,sync").split(",")) {
            Simulator.Builder b = FieldScenariosIT.streamingLimits(Simulator.builder()
                    .profile(Profile.OPENAI)
                    .firstByteLatency(Duration.ofMillis(firstByte))
                    .latencyPerToken(Duration.ofMillis(perToken))
                    .eachUnmappedKeyItsOwnOrganization());
            if (neighbour > 0) {
                b.neighbour("org-field", neighbour);
            }
            try (Simulator sim = b.start()) {
                ForkedApp.Result r = FieldScenariosIT.forked(
                                true,
                                null,
                                FieldApp.class,
                                "api.openai.com",
                                LoopbackHosts.url("api.openai.com", sim.port(), "/v1"),
                                mode,
                                200,
                                400,
                                60,
                                40,
                                "app:sk-field-1:6")
                        .run()
                        .assertOk();
                Run run = new Run(r.summary(), sim.ledger().exchanges(), sim);
                Instant first = run.firstArrival();
                table.row(
                        mode,
                        firstByte + " / " + perToken + " ms",
                        String.format("%.0f %%", 100 * neighbour),
                        run.completed() + " of " + run.calls(),
                        run.attempts(),
                        String.format("%d (%.1f %%)", run.provider429s().size(), run.percent429()),
                        run.provider429s().stream()
                                .map(e -> e.callId() + "@"
                                        + Duration.between(first, e.arrivedAt()).toMillis())
                                .collect(Collectors.joining(" ")));
            }
        }
        System.out.println("\nStale headers probe (scenario b's limits, agent " + System.getProperty("sluice.agent.jar")
                + "):\n" + table);
    }
}
