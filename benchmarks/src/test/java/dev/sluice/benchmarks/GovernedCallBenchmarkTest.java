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
    void everyCallIsAdmittedAndSettledFromItsAnswer() throws Exception {
        for (String body : new String[] {"in-send", "after"}) {
            for (String cache : new String[] {"warm", "cooled", "http", "idle"}) {
                run(body, cache);
            }
        }
    }

    private static void run(String body, String cache) throws Exception {
        GovernedCallBenchmark benchmark = new GovernedCallBenchmark();
        benchmark.body = body;
        benchmark.cache = cache;
        benchmark.start();
        String as = body + ", cache=" + cache;
        try {
            Governor governor = benchmark.governor();
            for (int i = 0; i < 5; i++) {
                benchmark.cool();
                assertThat(benchmark.governedCall()).as(as).isInstanceOf(GovernedCallBenchmark.InstantTransport.class);
            }
            assertThat(governor.stats().admitted()).as(as).isEqualTo(5);
            assertThat(governor.stats().settled()).as(as).isEqualTo(5);
            assertThat(governor.controls().outstandingPermits()).as(as).isZero();
        } finally {
            benchmark.stop();
        }
    }
}
