package dev.sluice.it.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.providers.LoopbackHosts;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A herd at a cold scope: {@value #THREADS} virtual threads on JDK 25, each making one call through
 * the JDK client at the same moment, with the agent and no config, against the simulator as OpenAI
 * is met in the field: {@value #REQUESTS_PER_MINUTE} requests a minute with a full minute of burst,
 * counted for the whole organization and named on every answer, refused requests not counted, and
 * answers that take {@value #FIRST_BYTE_MILLIS} ms, longer than the cold start's first wait (3 s).
 * Each request has a timeout of {@value #REQUEST_TIMEOUT_SECONDS} s, as a batch job sets one.
 *
 * <p>What must hold: the provider refuses at most a handful of attempts ({@value #PROVIDER_429S}),
 * and no retry reaches it where a first attempt would not (attempts at most one per completed call
 * plus those refusals); every call ends, completed or refused locally at its deadline; nothing is
 * left in flight, waiting or reserved. Before the slow start, the first answer arriving after the
 * cold start's wait let the whole herd go at once: 9,986 attempts, 8,802 refused.
 */
@Isolated
class ColdHerdIT {

    static final int THREADS = 10_000;
    static final int REQUESTS_PER_MINUTE = 600;
    static final int FIRST_BYTE_MILLIS = 4_000;
    static final int REQUEST_TIMEOUT_SECONDS = 20;
    static final int PROVIDER_429S = 5;
    private static final String HOST = "api.openai.com";
    private static final int APP_DEADLINE_SECONDS = 45;

    @Test
    void aHerdAtAColdScopeCostsAtMostAHandfulOfProviderRefusals() throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .firstByteLatency(Duration.ofMillis(FIRST_BYTE_MILLIS))
                .latencyPerToken(Duration.ZERO)
                .limit(Limit.of(Dimension.REQUESTS, REQUESTS_PER_MINUTE, Duration.ofMinutes(1)))
                .organization("org-herd", "sk-load-test")
                .countRefusedRequests(false)
                .start()) {
            long started = System.nanoTime();
            ForkedApp.Result r = ForkedApp.of(VirtualThreadsApp.class)
                    .jdk(ForkedApp.Jdk.JDK25)
                    .withAgent(null)
                    .timeout(Duration.ofSeconds(APP_DEADLINE_SECONDS + 30))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .args(
                            LoopbackHosts.url(HOST, sim.port(), ""),
                            THREADS,
                            APP_DEADLINE_SECONDS,
                            "jdk",
                            REQUEST_TIMEOUT_SECONDS)
                    .run();
            long wall = (System.nanoTime() - started) / 1_000_000;
            assertThat(r.timedOut)
                    .as("the app ended on its own; stdout:%n%s%nstderr:%n%s", r.stdout, r.stderr)
                    .isFalse();
            VirtualThreadLoadIT.Run run =
                    new VirtualThreadLoadIT.Run(r.summary(), sim.ledger().exchanges(), wall);
            System.out.printf("cold herd, %d threads, %d req/min: %s%n", THREADS, REQUESTS_PER_MINUTE, run.diagnosis());

            assertThat(run.summary().get("finished").asBoolean())
                    .as("every call ended: %s", run.diagnosis())
                    .isTrue();
            assertThat(run.provider429s())
                    .as("provider 429s: %s", run.diagnosis())
                    .isLessThanOrEqualTo(PROVIDER_429S);
            assertThat(run.outcome("200") + run.outcome("429 local"))
                    .as("every call completed or was refused locally: %s", run.diagnosis())
                    .isEqualTo(THREADS);
            assertThat(run.attempts())
                    .as("attempts: one per completed call and the refusals: %s", run.diagnosis())
                    .isLessThanOrEqualTo(run.outcome("200") + PROVIDER_429S);
            assertThat(run.outcome("200"))
                    .as("the burst and the refill until the deadlines were used: %s", run.diagnosis())
                    .isGreaterThanOrEqualTo(REQUESTS_PER_MINUTE);
            assertThat(run.summary().get("inFlight").asInt())
                    .as(run.diagnosis())
                    .isZero();
            assertThat(run.summary().get("waiting").asInt()).as(run.diagnosis()).isZero();
            assertThat(run.summary().get("reserved").asLong())
                    .as(run.diagnosis())
                    .isZero();
        }
    }
}
