package dev.sluice.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retries a provider scope may spend: a fraction of recent first attempts plus a floor. */
class RetryBudgetTest {

    private static final Duration WINDOW = Duration.ofSeconds(10);

    private final FakeClock clock = new FakeClock();

    @Test
    void retriesAreAFractionOfRecentFirstAttempts() {
        RetryBudget budget = new RetryBudget(0.1, 0, WINDOW);
        firstAttempts(budget, 100);

        assertThat(retriesGranted(budget, 50)).isEqualTo(10);
    }

    @Test
    void aFloorPerSecondAllowsRetriesWhenThereIsLittleTraffic() {
        RetryBudget budget = new RetryBudget(0.1, 0.5, WINDOW);

        assertThat(budget.remaining(clock.nanoTime())).isEqualTo(5.0); // half a retry a second, for ten seconds
        assertThat(retriesGranted(budget, 50)).isEqualTo(5);
    }

    @Test
    void theFloorAddsToTheShareOfFirstAttempts() {
        RetryBudget budget = new RetryBudget(0.2, 0.5, WINDOW);
        firstAttempts(budget, 50);

        assertThat(budget.remaining(clock.nanoTime())).isEqualTo(15.0);
    }

    @Test
    void remainingCountsDownAsRetriesAreSpentAndNeverBelowZero() {
        RetryBudget budget = new RetryBudget(0.2, 0, WINDOW);
        firstAttempts(budget, 50);
        assertThat(budget.remaining(clock.nanoTime())).isEqualTo(10.0);

        retriesGranted(budget, 4);
        assertThat(budget.remaining(clock.nanoTime())).isEqualTo(6.0);

        retriesGranted(budget, 20);
        assertThat(budget.remaining(clock.nanoTime())).isZero();
        assertThat(budget.tryRetry(clock.nanoTime())).isFalse();
    }

    @Test
    void aFractionOfARetryIsNoRetry() {
        RetryBudget budget = new RetryBudget(0.1, 0, WINDOW);
        firstAttempts(budget, 9);

        assertThat(budget.remaining(clock.nanoTime())).isCloseTo(0.9, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(budget.tryRetry(clock.nanoTime())).isFalse();
    }

    @Test
    void firstAttemptsStopCountingOnceTheWindowHasPassed() {
        RetryBudget budget = new RetryBudget(0.1, 0, WINDOW);
        firstAttempts(budget, 100);

        clock.advance(WINDOW.minusMillis(1));
        assertThat(budget.remaining(clock.nanoTime())).isEqualTo(10.0);
        clock.advance(Duration.ofMillis(1));
        assertThat(budget.remaining(clock.nanoTime())).isZero();
        assertThat(budget.tryRetry(clock.nanoTime())).isFalse();
    }

    @Test
    void retriesSpentStopCountingOnceTheWindowHasPassed() {
        RetryBudget budget = new RetryBudget(0.1, 0, WINDOW);
        firstAttempts(budget, 100);
        retriesGranted(budget, 10);

        clock.advance(Duration.ofSeconds(5));
        firstAttempts(budget, 100);
        assertThat(budget.remaining(clock.nanoTime())).isEqualTo(10.0); // 20 earned, 10 spent

        clock.advance(Duration.ofSeconds(5)); // the first 100 and the 10 retries age out together
        assertThat(budget.remaining(clock.nanoTime())).isEqualTo(10.0);
        assertThat(retriesGranted(budget, 50)).isEqualTo(10);
    }

    @Test
    void theWindowSlidesATenthAtATime() {
        RetryBudget budget = new RetryBudget(0.1, 0, WINDOW);
        for (int second = 0; second < 10; second++) {
            firstAttempts(budget, 10);
            clock.advance(Duration.ofSeconds(1));
        }
        // ten seconds of traffic: the oldest second has just left the window
        assertThat(budget.remaining(clock.nanoTime())).isCloseTo(9.0, org.assertj.core.api.Assertions.within(1e-9));
        clock.advance(Duration.ofSeconds(4));
        assertThat(budget.remaining(clock.nanoTime())).isCloseTo(5.0, org.assertj.core.api.Assertions.within(1e-9));
        clock.advance(Duration.ofSeconds(5));
        assertThat(budget.remaining(clock.nanoTime())).isZero();
    }

    @Test
    void inAStormOfRefusalsRetriesStayABoundedShareOfTheTraffic() {
        RetryBudget budget = new RetryBudget(0.1, 1, WINDOW);
        long firsts = 0;
        long retries = 0;
        for (int tick = 0; tick < 600; tick++) { // a minute, a tick every 100 ms
            for (int call = 0; call < 10; call++) {
                budget.firstAttempt(clock.nanoTime());
                firsts++;
                // every attempt is refused (429) and every caller wants to retry at once
                if (budget.tryRetry(clock.nanoTime())) {
                    retries++;
                }
            }
            clock.advance(Duration.ofMillis(100));
        }
        // without a budget there would be a retry for every first attempt (and retries of retries)
        assertThat(retries).isLessThanOrEqualTo(firsts / 10 + 60 + 10);
        assertThat(retries).isGreaterThan(firsts / 10);
    }

    // ------------------------------------------------------------------ fixtures

    private void firstAttempts(RetryBudget budget, int n) {
        for (int i = 0; i < n; i++) {
            budget.firstAttempt(clock.nanoTime());
        }
    }

    /** Asks for {@code wanted} retries now; returns how many the budget allowed. */
    private int retriesGranted(RetryBudget budget, int wanted) {
        int granted = 0;
        for (int i = 0; i < wanted; i++) {
            if (budget.tryRetry(clock.nanoTime())) {
                granted++;
            }
        }
        return granted;
    }
}
