package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/**
 * A provider whose answers carry no rate-limit headers (Gemini, Vertex AI, a fixed-window gateway):
 * its 429s alone drive Sluice's pace. Driven on a fake clock against a model of the provider (a
 * token bucket of {@code limit} requests a minute, 5 at once, that Sluice cannot read) with eight
 * callers that each send their next call as soon as the last one is answered, 200 ms after it left.
 */
class AdaptivePaceTest extends GovernorFixture {

    private static final long STEP_MILLIS = 50;
    private static final long ANSWER_MILLIS = 200;
    private static final int CALLERS = 8;

    private static CallContext call() {
        return CallContext.builder("gemini")
                .model("gemini-2.5-flash")
                .tenant("t")
                .apiKeyId("k_1")
                .build();
    }

    private static final class Span {
        long accepted;
        long refused;

        double percentRefused() {
            return accepted + refused == 0 ? 0 : 100.0 * refused / (accepted + refused);
        }
    }

    private final class Run {
        double providerLevel = 5;
        final ArrayDeque<Object[]> inFlight = new ArrayDeque<>(); // {dueMillis, permit, refused}
        long nowMillis;

        Span run(Duration length, long limitPerMinute) {
            Span span = new Span();
            double perStep = limitPerMinute / 60.0 * STEP_MILLIS / 1000.0;
            for (long t = 0; t < length.toMillis(); t += STEP_MILLIS) {
                clock.advance(Duration.ofMillis(STEP_MILLIS));
                timer.advance(Duration.ZERO);
                nowMillis += STEP_MILLIS;
                providerLevel = Math.min(5, providerLevel + perStep);
                while (!inFlight.isEmpty() && (long) inFlight.peek()[0] <= nowMillis) {
                    Object[] a = inFlight.poll();
                    Permit p = (Permit) a[1];
                    boolean refused = (boolean) a[2];
                    if (refused) {
                        p.settleRefused(true);
                        governor.learner().answered(p, false);
                        governor.learner().capacityRefused(call(), null, true);
                    } else {
                        governor.learner().answered(p, true);
                        p.settle(Usage.NONE);
                    }
                }
                while (inFlight.size() < CALLERS) {
                    Admission a = governor.tryAdmit(call(), Demand.oneRequest());
                    if (!a.isAdmitted()) {
                        break;
                    }
                    boolean refused = providerLevel < 1;
                    if (refused) {
                        span.refused++;
                    } else {
                        providerLevel -= 1;
                        span.accepted++;
                    }
                    inFlight.add(new Object[] {nowMillis + ANSWER_MILLIS, a.permit(), refused});
                }
            }
            return span;
        }
    }

    private long pace() {
        return governor.controls().providerScopes().get(0).paceFromRefusals();
    }

    @Test
    void refusalsAloneBringThePaceUnderTheHiddenLimitAndItClimbsWhenTheLimitRises() {
        governor();
        Run run = new Run();

        Span first = run.run(Duration.ofSeconds(30), 120);
        long paceAfterFirst = pace();
        Span steady = run.run(Duration.ofSeconds(120), 120);
        long paceAtSteady = pace();
        Span raised = run.run(Duration.ofSeconds(60), 600);
        Span raisedSteady = run.run(Duration.ofSeconds(60), 600);
        System.out.printf(
                "hidden limit 120/min: first 30 s %d ok / %d refused (pace %d); next 2 min %d ok / %d refused"
                        + " (%.1f %%, pace %d); limit raised to 600/min: %d ok / %d refused, then %d ok / %d refused"
                        + " (pace %d)%n",
                first.accepted,
                first.refused,
                paceAfterFirst,
                steady.accepted,
                steady.refused,
                steady.percentRefused(),
                paceAtSteady,
                raised.accepted,
                raised.refused,
                raisedSteady.accepted,
                raisedSteady.refused,
                pace());

        // without a pace 8 callers would send 40 a second; with it, few calls meet a 429
        assertThat(paceAfterFirst).isPositive();
        assertThat(steady.percentRefused()).isLessThanOrEqualTo(5.0);
        // the pace saws between 70 % of the limit and the limit
        assertThat(steady.accepted).isGreaterThanOrEqualTo((long) (0.6 * 240));
        // the provider allows more: the pace climbs after it
        // (steady spans two minutes, raisedSteady one: twice the calls a minute)
        assertThat(raisedSteady.accepted).isGreaterThanOrEqualTo(2 * (steady.accepted / 2));
        assertThat(pace()).isGreaterThan(paceAtSteady);
        assertThat(raisedSteady.percentRefused()).isLessThanOrEqualTo(5.0);
    }

    @Test
    void aProviderThatSendsHeadersIsPacedByThemNotByRefusals() {
        governor();
        governor.learner()
                .learn(new ProviderAnswer(
                        call(),
                        java.util.List.of(new LearnedBudget(
                                "requests", dev.sluice.config.Dimension.REQUESTS, 120, 120, 60_000))));
        Permit p = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        p.settleRefused(true);
        governor.learner().answered(p, false);
        governor.learner().capacityRefused(call(), null, true);

        assertThat(pace()).isEqualTo(-1);
        assertThat(governor.controls().providerScopes().get(0).externalShare()).isPositive();
    }

    @Test
    void aProviderThatAnnouncesItsLimitsIsNotPacedByRefusalsBeforeItsHeadersCome() {
        governor();
        Permit p = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        p.settleRefused(true);
        governor.learner().answered(p, false);
        governor.learner().capacityRefused(call(), null, false);

        assertThat(pace()).isEqualTo(-1);
    }
}
