package dev.sluice.core;

import static dev.sluice.config.Dimension.SPEND;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.CalendarPeriod;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call a budget cannot cover now, but could once the calls in flight settle (each reserved its
 * worst case and usually costs less), waits for them in its class queue instead of being refused
 * at once; it is refused with {@code budget_exhausted} when what they settled leaves no room, or
 * at its deadline. Amounts are micro-units: 1_000_000 is 1.00 of the currency.
 */
class BudgetWaitTest extends GovernorFixture {

    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    @BeforeEach
    void aDailyBudgetOfOne() {
        // 2026-12-01 15:00 in Paris: the day has nine hours left
        clock.advance(Duration.ofMillis(Instant.parse("2026-12-01T14:00:00Z").toEpochMilli() - clock.epochMillis()));
        governor(LimitSpec.builder("org.spend.day", SPEND, 1_000_000)
                .calendar(CalendarPeriod.DAY, LocalTime.MIDNIGHT, PARIS)
                .level(ScopeLevel.ORGANIZATION)
                .build());
    }

    private static CallContext call(String trafficClass) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("a")
                .trafficClass(trafficClass)
                .build();
    }

    private static Demand costing(long worstCaseMicros) {
        return BudgetTest.costing(worstCaseMicros);
    }

    private static Usage spent(long micros) {
        return BudgetTest.spent(micros, true);
    }

    private BudgetStatus status() {
        return governor.controls().budgetStatuses("org.spend.day").get(0);
    }

    @Test
    void aCallWaitsForTheReservationsInFlightAndGoesWhenTheyLeaveRoom() {
        Permit first = governor.tryAdmit(call("default"), costing(600_000)).permit();

        // 0.40 left now, but the 0.60 in flight may come back: wait, do not refuse
        CompletableFuture<Admission> second = governor.admitAsync(call("default"), costing(500_000), 0);
        assertThat(second).isNotDone();
        assertThat(governor.controls().waiting()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(2));
        first.settleAndRelease(spent(300_000)); // cost less than its worst case: 0.70 left
        assertThat(second).isDone();
        Admission a = second.join();
        assertThat(a.isAdmitted()).isTrue();
        assertThat(a.permit().waitedNanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
        assertThat(status().reservedMicros()).isEqualTo(500_000);
        assertThat(status().leftMicros()).isEqualTo(200_000);
    }

    @Test
    void aWaitingCallIsRefusedAsSoonAsWhatSettledLeavesNoRoom() {
        Permit first = governor.tryAdmit(call("default"), costing(400_000)).permit();
        Permit second = governor.tryAdmit(call("default"), costing(400_000)).permit();
        CompletableFuture<Admission> third = governor.admitAsync(call("default"), costing(500_000), 0);
        assertThat(third).isNotDone();

        first.settleAndRelease(spent(400_000)); // 0.20 left, 0.40 in flight: 0.60 could still come
        assertThat(third).isNotDone();
        second.settleAndRelease(spent(350_000)); // 0.25 left, nothing in flight: never enough
        assertThat(third).isDone();
        Rejection r = third.join().rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        assertThat(r.budget().leftMicros()).isEqualTo(250_000);
        assertThat(r.budget().reservedMicros()).isZero();
        assertThat(governor.controls().waiting()).isZero();
    }

    @Test
    void aWaitingCallIsRefusedWithBudgetExhaustedAtItsClassDeadline() {
        governor.tryAdmit(call("default"), costing(800_000)); // stays in flight
        CompletableFuture<Admission> waiting = governor.admitAsync(call("interactive"), costing(300_000), 0);
        assertThat(waiting).isNotDone();

        timer.advance(Duration.ofMillis(299));
        assertThat(waiting).isNotDone();
        timer.advance(Duration.ofMillis(1)); // the interactive class waits 300 ms at most
        Rejection r = waiting.join().rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        assertThat(r.waitedMillis()).isEqualTo(300);
        assertThat(r.budget().reservedMicros()).isEqualTo(800_000);
        assertThat(Instant.ofEpochMilli(r.budget().resetsAtMillis())).isEqualTo(Instant.parse("2026-12-01T23:00:00Z"));
    }

    @Test
    void theCallersOwnDeadlineEndsTheWaitToo() {
        governor.tryAdmit(call("default"), costing(800_000));
        long deadline = clock.nanoTime() + Duration.ofMillis(50).toNanos();
        CompletableFuture<Admission> waiting = governor.admitAsync(call("default"), costing(300_000), deadline);
        timer.advance(Duration.ofMillis(50));
        assertThat(waiting.join().rejection().decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
    }

    @Test
    void withNothingInFlightThatCouldMakeRoomTheCallIsRefusedAtOnce() {
        governor.tryAdmit(call("default"), costing(900_000)).permit().settleAndRelease(spent(700_000));
        Permit small = governor.tryAdmit(call("default"), costing(50_000)).permit();

        // 0.25 left and 0.05 in flight: a call that may cost 0.40 can never fit today
        CompletableFuture<Admission> refused = governor.admitAsync(call("default"), costing(400_000), 0);
        assertThat(refused).isDone();
        assertThat(refused.join().rejection().decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        small.cancel();
    }

    @Test
    void aCallThatCannotWaitIsToldBudgetExhaustedNotRejectedLocally() {
        governor.tryAdmit(call("default"), costing(800_000));
        Admission a = governor.tryAdmit(call("default"), costing(300_000));
        assertThat(a.rejection().decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        assertThat(governor.controls().waiting()).isZero();
    }

    @Test
    void waitingCallsGoInTurnAsSettlementsComeBack() {
        Permit[] inFlight = new Permit[4];
        for (int i = 0; i < 4; i++) {
            inFlight[i] = governor.tryAdmit(call("default"), costing(250_000)).permit();
        }
        CompletableFuture<Admission> fifth = governor.admitAsync(call("default"), costing(250_000), 0);
        CompletableFuture<Admission> sixth = governor.admitAsync(call("default"), costing(250_000), 0);
        assertThat(governor.controls().waiting()).isEqualTo(2);

        inFlight[0].settleAndRelease(spent(100_000)); // 0.15 back: not enough for either
        assertThat(fifth).isNotDone();
        inFlight[1].settleAndRelease(spent(100_000)); // 0.30 back: the first in line goes
        assertThat(fifth.join().isAdmitted()).isTrue();
        assertThat(sixth).isNotDone();
        inFlight[2].settleAndRelease(spent(250_000));
        inFlight[3].settleAndRelease(spent(250_000)); // 0.05 left, the fifth's 0.25 still in flight
        assertThat(sixth).isNotDone();
        fifth.join().permit().settleAndRelease(spent(200_000)); // 0.10 left, nothing in flight
        Rejection r = sixth.join().rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        // every reservation was released: the budget holds only what was spent
        assertThat(status().reservedMicros()).isZero();
        assertThat(status().spentMicros()).isEqualTo(900_000);
    }
}
