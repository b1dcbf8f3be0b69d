package dev.sluice.it.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.retry.RetryRun.Sdk;
import dev.sluice.simulator.ledger.Exchange;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every attempt is refused with {@code retry-after-ms: 1000} (openai-java at its defaults): no
 * attempt of a call comes before the announced wait after its previous refusal, the wait pauses the
 * provider scope for every caller, each call makes at most 3 attempts, and the application gets
 * the SDK's RateLimitException carrying the {@code sluice} object.
 */
class WaitHintIT {

    private static final Duration HINT = Duration.ofMillis(1000);
    /** A request admitted just before another call's refusal was read may still be on its way. */
    private static final Duration IN_FLIGHT_SLACK = Duration.ofMillis(300);

    @Test
    void noAttemptBeforeTheAnnouncedWait() throws Exception {
        RetryRun run = RetryRun.run(Sdk.OPENAI, true, 0, 3, 2, "rate_limited", false);
        run.record("every attempt 429, retry-after 1 s");

        assertThat(run.attempts().getMax()).as("%s", run).isLessThanOrEqualTo(3);
        assertThat(run.attempts().getMax()).as("Sluice retried at all\n%s", run).isGreaterThan(1);
        for (String callId : run.attemptsPerCall.keySet()) {
            List<Exchange> attempts = run.attemptsOf(callId);
            for (int i = 1; i < attempts.size(); i++) {
                Instant refused = attempts.get(i - 1).completedAt();
                assertThat(attempts.get(i).arrivedAt())
                        .as("attempt %d of %s\n%s", i + 1, callId, run)
                        .isAfterOrEqualTo(refused.plus(HINT));
            }
        }
        // the pause is the scope's: after any refusal, nobody's request arrives until the wait is over
        for (Exchange refusal : run.exchanges) {
            Instant from = refusal.completedAt().plus(IN_FLIGHT_SLACK);
            Instant until = refusal.completedAt().plus(HINT);
            assertThat(run.exchanges)
                    .as("arrivals during the pause after #%d\n%s", refusal.seq(), run)
                    .noneMatch(e -> e.arrivedAt().isAfter(from) && e.arrivedAt().isBefore(until));
        }
        assertThat(run.counters("exception:RateLimitException:")).as("%s", run).isEqualTo(6);
        assertThat(run.counters("sluice:"))
                .as("bodies with the sluice object\n%s", run)
                .isEqualTo(6);
    }
}
