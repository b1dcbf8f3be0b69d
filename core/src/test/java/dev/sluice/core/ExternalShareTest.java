package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A provider budget shared with a neighbour Sluice cannot see: Sluice estimates the neighbour's
 * share from the provider's own figures, paces under what it leaves, and gives the room back when
 * the neighbour goes. Driven on a fake clock against a model of the provider (a token bucket of
 * 600 requests a minute, counting each call when it arrives and reporting {@code remaining} in
 * the answer a second later, as a sync call's answer does).
 */
class ExternalShareTest extends GovernorFixture {

    private static final long CAPACITY = 600;
    private static final double RATE_PER_SECOND = CAPACITY / 60.0;
    private static final long STEP_MILLIS = 50;

    private static CallContext call() {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("t")
                .apiKeyId("k_1")
                .build();
    }

    /** What the provider saw over one span of the run. */
    private static final class Span {
        long admitted;
        long refused;
    }

    /** An answer on its way back: when it arrives, what it says remained, and the call it answers. */
    private static final class Answer {
        final long dueMillis;
        final long remaining;
        final boolean refused;
        final Permit permit;

        Answer(long dueMillis, long remaining, boolean refused, Permit permit) {
            this.dueMillis = dueMillis;
            this.remaining = remaining;
            this.refused = refused;
            this.permit = permit;
        }
    }

    /** The provider, the neighbour and Sluice's callers (always more than the budget allows). */
    private final class Run {
        double providerLevel = CAPACITY;
        final ArrayDeque<Answer> answers = new ArrayDeque<>();
        long nowMillis;

        Span run(Duration length, double neighbourShare) {
            Span span = new Span();
            for (long t = 0; t < length.toMillis(); t += STEP_MILLIS) {
                clock.advance(Duration.ofMillis(STEP_MILLIS));
                timer.advance(Duration.ZERO);
                nowMillis += STEP_MILLIS;
                providerLevel = Math.min(CAPACITY, providerLevel + RATE_PER_SECOND * STEP_MILLIS / 1000.0);
                providerLevel = Math.max(0, providerLevel - neighbourShare * RATE_PER_SECOND * STEP_MILLIS / 1000.0);
                while (!answers.isEmpty() && answers.peek().dueMillis <= nowMillis) {
                    Answer a = answers.poll();
                    governor.learner()
                            .learn(new ProviderAnswer(
                                            call(),
                                            List.of(new LearnedBudget(
                                                    "requests", REQUESTS, CAPACITY, a.remaining, 60_000)))
                                    .organization("org-shared")
                                    .answering(a.permit));
                    if (a.refused) {
                        governor.learner().capacityRefused(a.permit, REQUESTS, false);
                    }
                    a.permit.settle(Usage.NONE);
                }
                Admission a;
                while ((a = governor.tryAdmit(call(), Demand.oneRequest())).isAdmitted()) {
                    boolean refused = providerLevel < 1;
                    if (refused) {
                        span.refused++;
                    } else {
                        providerLevel -= 1;
                        span.admitted++;
                    }
                    answers.add(new Answer(nowMillis + 1_000, (long) Math.floor(providerLevel), refused, a.permit()));
                }
            }
            return span;
        }
    }

    private double externalShare() {
        return governor.controls().providerScopes().get(0).externalShare();
    }

    /**
     * A burst that met an empty budget is refused many times at once: one piece of evidence, not
     * ten (ten 429s at the end of a storm once left others 85 % of a budget, and the scope crawled
     * at a tenth of its rate). A call admitted after that and still refused is new evidence.
     */
    @Test
    void refusalsOfCallsSentBeforeTheFirstRaiseTheEstimateOnce() {
        governor();
        governor.learner()
                .learn(new ProviderAnswer(
                                call(), List.of(new LearnedBudget("requests", REQUESTS, CAPACITY, CAPACITY, 60_000)))
                        .organization("org-shared"));
        List<Permit> burst = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            burst.add(governor.tryAdmit(call(), Demand.oneRequest()).permit());
        }
        timer.advance(Duration.ofMillis(300));

        for (Permit p : burst) {
            governor.learner().capacityRefused(p, REQUESTS, false);
            p.settleRefused(true);
        }
        double afterOneBurst = externalShare();
        // admitted at the moment of the raise (no time passes in between): after it, so new evidence
        Permit later = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        governor.learner().capacityRefused(later, REQUESTS, false);
        later.settleRefused(true);

        assertThat(afterOneBurst).isCloseTo(0.25 * 0.9, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(externalShare()).isGreaterThan(afterOneBurst);
    }

    @Test
    void pacesUnderWhatANeighbourTakingFortyPercentLeavesAndGivesItBackWhenItGoes() {
        governor();
        Run run = new Run();
        governor.learner()
                .learn(new ProviderAnswer(
                                call(), List.of(new LearnedBudget("requests", REQUESTS, CAPACITY, CAPACITY, 60_000)))
                        .organization("org-shared"));

        Span learning = run.run(Duration.ofSeconds(60), 0.4);
        Span steady = run.run(Duration.ofSeconds(60), 0.4);
        double shareWithNeighbour = externalShare();
        Span alone = run.run(Duration.ofSeconds(120), 0.0);
        Span aloneSteady = run.run(Duration.ofSeconds(60), 0.0);
        System.out.printf(
                "neighbour 40%%: first minute %d ok / %d refused; next minute %d ok / %d refused, "
                        + "estimate %.2f; neighbour gone: %d ok / %d refused, then %d ok / %d refused, estimate %.2f%n",
                learning.admitted,
                learning.refused,
                steady.admitted,
                steady.refused,
                shareWithNeighbour,
                alone.admitted,
                alone.refused,
                aloneSteady.admitted,
                aloneSteady.refused,
                externalShare());

        // the neighbour leaves 6 a second: Sluice uses at least 85 % of it, with at most 2 % refused.
        // The estimate here comes from the first minute's two refusals, of two calls sent together
        // (one raise: 0.225); the answers, every 50 ms, each bring the room to the figure and leave
        // gaps under the noise tolerance. The pace follows the figures either way.
        assertThat(shareWithNeighbour).isBetween(0.2, 0.6);
        assertThat(steady.admitted).isGreaterThanOrEqualTo((long) (0.85 * 0.6 * CAPACITY));
        assertThat(steady.refused).isLessThanOrEqualTo(steady.admitted * 2 / 100);
        // once it is gone the room comes back: the whole rate, and the estimate gone
        assertThat(externalShare()).isLessThan(0.05);
        assertThat(aloneSteady.admitted).isGreaterThanOrEqualTo((long) (0.9 * CAPACITY));
        assertThat(aloneSteady.refused).isLessThanOrEqualTo(aloneSteady.admitted * 2 / 100);
    }
}
