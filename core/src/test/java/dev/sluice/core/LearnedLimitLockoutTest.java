package dev.sluice.core;

import static dev.sluice.config.Dimension.INPUT_TOKENS;
import static dev.sluice.config.Dimension.REQUESTS;
import static dev.sluice.config.Dimension.TOTAL_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What the provider says about its budgets may lower Sluice's pace, never lock a scope out: only a
 * configured limit or a limit the provider announced can make a call inadmissible, and a scope
 * that knows only what a header said heals as its buckets refill.
 */
class LearnedLimitLockoutTest extends GovernorFixture {

    private static final long MINUTE_MILLIS = 60_000;

    private static CallContext call() {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("t")
                .apiKeyId("k_abc123")
                .build();
    }

    private static Demand tokens(long in, long out) {
        return Demand.builder().inputTokens(in).outputTokens(out).build();
    }

    private static LearnedBudget budget(String name, Dimension d, long limit, long remaining) {
        return new LearnedBudget(name, d, limit, remaining, MINUTE_MILLIS);
    }

    @Test
    void aFirstAnswerWithNoTokensLeftDoesNotMakeLaterCallsInadmissible() {
        governor();
        CallContext c = call();
        // OpenAI when the tokens run out: a large limit, 0 remaining (reset 2s)
        governor.learner().learn(new ProviderAnswer(c, List.of(budget("tokens", TOTAL_TOKENS, 100_000_000, 0))));

        Admission now = governor.tryAdmit(c, tokens(32, 32));
        assertThat(now.isAdmitted()).isFalse();
        assertThat(now.rejection().decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        clock.advance(Duration.ofMillis(100)); // the limit refills 1.6 million tokens a second
        assertThat(governor.tryAdmit(c, tokens(32, 32)).isAdmitted()).isTrue();
    }

    @Test
    void aCallLargerThanTheBurstSeenWaitsForAFullBucketInsteadOfBeingRefused() {
        governor();
        CallContext c = call();
        // the provider has shown at most 100 tokens left at once of a 6,000 a minute limit
        governor.learner().learn(new ProviderAnswer(c, List.of(budget("tokens", TOTAL_TOKENS, 6_000, 99))));
        Admission big = governor.tryAdmit(c, tokens(150, 150));
        assertThat(big.isAdmitted()).isFalse();
        assertThat(big.rejection().decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        clock.advance(Duration.ofSeconds(60));
        assertThat(governor.tryAdmit(c, tokens(150, 150)).isAdmitted()).isTrue();
        // and it took all it asked for: the next call waits for the refill
        assertThat(governor.tryAdmit(c, tokens(10, 10)).isAdmitted()).isFalse();
    }

    @Test
    void remainingAloneNeverBecomesACapacityThatRefusesLargerCalls() {
        governor();
        CallContext c = call();
        // Azure announces only what remains: 0 must not become a capacity of 1
        governor.learner().learn(new ProviderAnswer(c, List.of(budget("tokens", TOTAL_TOKENS, -1, 0))));
        Admission a = governor.tryAdmit(c, tokens(500, 500));
        assertThat(a.isAdmitted() || a.rejection().decision() != GatewayDecision.NOT_ADMISSIBLE)
                .as("decision %s", a.isAdmitted() ? "admitted" : a.rejection().decision())
                .isTrue();
    }

    @Test
    void aCallLargerThanTheAnnouncedLimitIsStillNotAdmissible() {
        governor();
        CallContext c = call();
        governor.learner().learn(new ProviderAnswer(c, List.of(budget("tokens", TOTAL_TOKENS, 30_000, 30_000))));
        Admission a = governor.tryAdmit(c, tokens(34_000, 100));
        assertThat(a.isAdmitted()).isFalse();
        assertThat(a.rejection().decision()).isEqualTo(GatewayDecision.NOT_ADMISSIBLE);
    }

    @Test
    void aConfiguredBurstPacesCallsLargerThanItAndItsCapacityRefusesThem() {
        governor(dev.sluice.core.quota.LimitSpec.builder("in", INPUT_TOKENS, 6_000)
                .window(Duration.ofMinutes(1))
                .burst(100)
                .build());
        assertThat(governor.tryAdmit(call(), tokens(150, 0)).isAdmitted()).isTrue();
        Admission a = governor.tryAdmit(call(), tokens(6_001, 0));
        assertThat(a.isAdmitted()).isFalse();
        assertThat(a.rejection().decision()).isEqualTo(GatewayDecision.NOT_ADMISSIBLE);
    }

    /**
     * Any sequence of announced budgets, with limits and remaining figures from the sane to the
     * absurd, leaves every call no larger than the announced limit admissible, and admitted within
     * two windows.
     */
    @Test
    void noSequenceOfHeadersLocksAScopeOut() {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        SplittableRandom random = new SplittableRandom(seed);
        for (int run = 0; run < 300; run++) {
            governor();
            CallContext c = call();
            long announced = 0;
            int answers = 1 + random.nextInt(6);
            for (int i = 0; i < answers; i++) {
                long limit = pick(random, -1, 0, 1, 2, 60, 6_000, 100_000_000, Long.MAX_VALUE / 4);
                long remaining = pick(random, -1, 0, 1, 63, 5_999, 100_000_000, Long.MAX_VALUE / 4);
                Dimension d = random.nextBoolean() ? TOTAL_TOKENS : REQUESTS;
                List<LearnedBudget> budgets = new ArrayList<>();
                budgets.add(budget(d == REQUESTS ? "requests" : "tokens", d, limit, remaining));
                governor.learner().learn(new ProviderAnswer(c, budgets));
                if (Boolean.getBoolean("sluice.test.trace")) {
                    System.out.printf("run %d: %s limit=%d remaining=%d%n", run, d, limit, remaining);
                }
                if (d == TOTAL_TOKENS && limit > 0) {
                    announced = limit; // the last announced limit is the one in force
                }
                clock.advance(Duration.ofMillis(random.nextInt(500)));
            }
            long demand = 1 + random.nextInt(200);
            if (announced > 0 && announced < 2 * demand) {
                continue; // a call larger than the limit announced is the provider's to refuse
            }
            Admission first = governor.tryAdmit(c, tokens(demand, demand));
            assertThat(first.isAdmitted() || first.rejection().decision() != GatewayDecision.NOT_ADMISSIBLE)
                    .as(
                            "seed %d run %d: %s",
                            seed,
                            run,
                            first.isAdmitted() ? "" : first.rejection().detail())
                    .isTrue();
            if (!first.isAdmitted()) {
                // a learned debt is at most one burst, and a burst refills within a window
                clock.advance(Duration.ofMillis(2 * MINUTE_MILLIS + 1));
                Admission later = governor.tryAdmit(c, tokens(demand, demand));
                assertThat(later.isAdmitted())
                        .as(
                                "seed %d run %d: two windows later: %s",
                                seed,
                                run,
                                later.isAdmitted() ? "" : later.rejection().detail())
                        .isTrue();
            }
            governor.close();
        }
    }

    private static long pick(SplittableRandom random, long... values) {
        return values[random.nextInt(values.length)];
    }
}
