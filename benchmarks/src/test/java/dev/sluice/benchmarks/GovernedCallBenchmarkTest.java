package dev.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Governor;
import org.junit.jupiter.api.Test;

/**
 * Runs the governed-call benchmark a few times outside JMH: each call must be admitted and settled
 * by the governor, from the answer's usage, with nothing left open, or its figures would measure
 * something else than a governed call.
 */
class GovernedCallBenchmarkTest {

    @Test
    void everyCallIsAdmittedAndSettledFromItsAnswer() {
        for (String body : new String[] {"in-send", "after"}) {
            GovernedCallBenchmark benchmark = new GovernedCallBenchmark();
            benchmark.body = body;
            benchmark.start();
            try {
                Governor governor = benchmark.governor();
                for (int i = 0; i < 5; i++) {
                    assertThat(benchmark.governedCall())
                            .as(body)
                            .isInstanceOf(GovernedCallBenchmark.InstantTransport.class);
                }
                assertThat(governor.stats().admitted()).as(body).isEqualTo(5);
                assertThat(governor.stats().settled()).as(body).isEqualTo(5);
                assertThat(governor.outstandingPermits()).as(body).isZero();
            } finally {
                benchmark.stop();
            }
        }
    }
}
