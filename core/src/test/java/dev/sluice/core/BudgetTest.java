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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Spend limits as budgets: reserved at admission at the worst case, settled at the actual cost,
 * refused at once when exhausted, reset with their calendar period, alerting once per period.
 * Amounts are micro-units: 1_000_000 is 1.00 of the currency.
 */
class BudgetTest extends GovernorFixture {

    /** 2026-12-01 15:00 in Paris. */
    private static final Instant AFTERNOON = Instant.parse("2026-12-01T14:00:00Z");

    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    private final List<BudgetAlert> alerts = new CopyOnWriteArrayList<>();

    /** Moves the fixture's clock to {@link #AFTERNOON}. */
    private void atAfternoon() {
        clock.advance(Duration.ofMillis(AFTERNOON.toEpochMilli() - clock.epochMillis()));
    }

    private Governor budgetGovernor(long amountMicros, CalendarPeriod period) {
        Governor g = governor(LimitSpec.builder("org.spend.day", SPEND, amountMicros)
                .calendar(period, LocalTime.MIDNIGHT, PARIS)
                .level(ScopeLevel.ORGANIZATION)
                .build());
        g.controls().addBudgetListener(alerts::add);
        return g;
    }

    private static CallContext call(String tenant) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant(tenant)
                .apiKeyId("k_abc123")
                .build();
    }

    static Demand costing(long worstCaseMicros) {
        return Demand.builder()
                .inputTokens(100)
                .outputTokens(100)
                .spendMicros(worstCaseMicros)
                .build();
    }

    static Usage spent(long micros, boolean reported) {
        return Usage.builder()
                .inputTokens(100)
                .outputTokens(50)
                .spendMicros(micros)
                .reportedByProvider(reported)
                .build();
    }

    private BudgetStatus status() {
        return governor.controls().budgetStatuses("org.spend.day").get(0);
    }

    @Test
    void reservesTheWorstCaseThenSettlesTheActualCost() {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        Permit p = governor.tryAdmit(call("a"), costing(300_000)).permit();
        assertThat(status().reservedMicros()).isEqualTo(300_000);
        assertThat(status().spentMicros()).isZero();
        assertThat(status().leftMicros()).isEqualTo(700_000);

        p.settleAndRelease(spent(120_000, true));
        assertThat(status().reservedMicros()).isZero();
        assertThat(status().spentMicros()).isEqualTo(120_000);
        assertThat(status().leftMicros()).isEqualTo(880_000);
        assertThat(governor.controls().budgetSettlements("org.spend.day")).containsExactly(1, 0, 0);
    }

    @Test
    void aCallThatMayCostMoreThanWhatIsLeftIsRefusedAtOnceWithTheResetTime() throws Exception {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        governor.tryAdmit(call("a"), costing(900_000)).permit().settleAndRelease(spent(900_000, true));

        // admit() with a long deadline: a budget does not make the caller wait for tomorrow
        Admission refused = governor.admit(
                call("a"),
                costing(200_000),
                clock.nanoTime() + Duration.ofHours(1).toNanos());
        assertThat(refused.isAdmitted()).isFalse();
        Rejection r = refused.rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        assertThat(r.limiter()).isEqualTo(SPEND);
        assertThat(r.budget().limitId()).isEqualTo("org.spend.day");
        assertThat(r.budget().leftMicros()).isEqualTo(100_000);
        assertThat(r.budget().spentMicros()).isEqualTo(900_000);
        // midnight in Paris is 23:00 UTC in winter
        assertThat(Instant.ofEpochMilli(r.budget().resetsAtMillis())).isEqualTo(Instant.parse("2026-12-01T23:00:00Z"));
        assertThat(r.retryAfterMillis()).isEqualTo(Duration.ofHours(9).toMillis());
        assertThat(r.detail()).contains("0.20 USD", "0.10 USD left", "spent 0.90 USD of 1.00 USD this day");

        // a call that fits what is left still goes
        assertThat(governor.tryAdmit(call("a"), costing(100_000)).isAdmitted()).isTrue();
    }

    @Test
    void theNextPeriodStartsWithTheWholeAmount() {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        governor.tryAdmit(call("a"), costing(1_000_000)).permit().settleAndRelease(spent(1_000_000, true));
        assertThat(governor.tryAdmit(call("a"), costing(1)).isAdmitted()).isFalse();

        clock.advance(Duration.ofHours(9)); // 00:00 in Paris
        assertThat(status().spentMicros()).isZero();
        assertThat(governor.tryAdmit(call("a"), costing(1_000_000)).isAdmitted())
                .isTrue();
    }

    @Test
    void racingCallsNeverReserveMoreThanTheAmount() throws Exception {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicLong reserved = new AtomicLong();
        AtomicLong charged = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            futures.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 200; i++) {
                    Admission a = governor.tryAdmit(call("a"), costing(7_000));
                    if (a.isAdmitted()) {
                        reserved.addAndGet(7_000);
                        // actual cost: a little under the worst case, as with real usage
                        a.permit().settleAndRelease(spent(5_000, true));
                        charged.addAndGet(5_000);
                    } else {
                        assertThat(a.rejection().decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (java.util.concurrent.Future<?> f : futures) {
            f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        // every admitted call was charged; the total never passes the amount, and what is left is
        // less than one more call's worst case
        assertThat(charged.get()).isLessThanOrEqualTo(1_000_000);
        assertThat(status().spentMicros()).isEqualTo(charged.get());
        assertThat(status().leftMicros()).isLessThan(7_000);
        assertThat(status().reservedMicros()).isZero();
    }

    @Test
    void aStreamCutShortIsChargedWhatWasCountedAndLostUsageIsChargedItsReservation() {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        governor.tryAdmit(call("a"), costing(50_000)).permit().settleAndRelease(spent(20_000, false));
        governor.tryAdmit(call("a"), costing(50_000)).permit().settleAsReserved();
        governor.tryAdmit(call("a"), costing(50_000)).permit().cancel();
        assertThat(status().spentMicros()).isEqualTo(70_000);
        assertThat(governor.controls().budgetSettlements("org.spend.day")).containsExactly(0, 1, 1);
    }

    @Test
    void warnsOncePerPeriodAtTheWarningShareThenAtExhaustion() {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        for (int i = 0; i < 7; i++) {
            governor.tryAdmit(call("a"), costing(100_000)).permit().settleAndRelease(spent(100_000, true));
        }
        timer.advance(Duration.ZERO);
        assertThat(alerts).isEmpty();

        governor.tryAdmit(call("a"), costing(100_000)).permit().settleAndRelease(spent(100_000, true)); // 80 %
        governor.tryAdmit(call("a"), costing(100_000)).permit().settleAndRelease(spent(100_000, true)); // 90 %
        timer.advance(Duration.ZERO);
        assertThat(alerts).extracting(BudgetAlert::level).containsExactly(BudgetAlert.Level.WARNING);
        assertThat(alerts.get(0).status().spentMicros()).isEqualTo(800_000);
        assertThat(alerts.get(0).message()).contains("passed 80 %", "org.spend.day");

        governor.tryAdmit(call("a"), costing(200_000)); // refused: exhausted for this call
        governor.tryAdmit(call("a"), costing(200_000)); // refused again: no second alert
        timer.advance(Duration.ZERO);
        assertThat(alerts)
                .extracting(BudgetAlert::level)
                .containsExactly(BudgetAlert.Level.WARNING, BudgetAlert.Level.EXHAUSTED);

        clock.advance(Duration.ofHours(9)); // the next day
        for (int i = 0; i < 8; i++) {
            governor.tryAdmit(call("a"), costing(100_000)).permit().settleAndRelease(spent(100_000, true));
        }
        timer.advance(Duration.ZERO);
        assertThat(alerts)
                .extracting(BudgetAlert::level)
                .containsExactly(BudgetAlert.Level.WARNING, BudgetAlert.Level.EXHAUSTED, BudgetAlert.Level.WARNING);
    }

    @Test
    void anUnpricedCallCostsNothingAndIsNotRefused() {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        governor.tryAdmit(call("a"), costing(1_000_000)).permit().settleAndRelease(spent(1_000_000, true));
        assertThat(governor.tryAdmit(call("a"), costing(0)).isAdmitted()).isTrue();
    }

    @Test
    void aTenantBudgetHasOneBucketPerTenant() {
        atAfternoon();
        governor(LimitSpec.builder("tenant.spend.month", SPEND, 500_000)
                .calendar(CalendarPeriod.MONTH, LocalTime.MIDNIGHT, PARIS)
                .level(ScopeLevel.TENANT)
                .build());
        governor.tryAdmit(call("a"), costing(500_000)).permit().settleAndRelease(spent(500_000, true));
        assertThat(governor.tryAdmit(call("a"), costing(1)).rejection().decision())
                .isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        Admission b = governor.tryAdmit(call("b"), costing(400_000));
        assertThat(b.isAdmitted()).isTrue();
        Rejection refused = governor.tryAdmit(call("a"), costing(1)).rejection();
        assertThat(refused.budget().scope()).contains("tenant=a");
        assertThat(Instant.ofEpochMilli(refused.budget().resetsAtMillis()))
                .isEqualTo(Instant.parse("2026-12-31T23:00:00Z"));
    }

    @Test
    void whatAPeriodSpentSurvivesARestartUntilThePeriodEnds() throws Exception {
        atAfternoon();
        budgetGovernor(1_000_000, CalendarPeriod.DAY);
        governor.tryAdmit(call("a"), costing(700_000)).permit().settleAndRelease(spent(600_000, true));
        dev.sluice.core.state.SavedState saved = dev.sluice.core.state.SavedState.fromJson(
                governor.controls().saveState().toJson());

        clock.advance(Duration.ofHours(1));
        governor.close();
        budgetGovernor(1_000_000, CalendarPeriod.DAY).controls().restoreState(saved);
        assertThat(status().spentMicros()).isEqualTo(600_000);
        assertThat(governor.tryAdmit(call("a"), costing(500_000)).rejection().decision())
                .isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);

        // saved yesterday, restored today: the new day starts whole
        clock.advance(Duration.ofHours(9));
        governor.close();
        budgetGovernor(1_000_000, CalendarPeriod.DAY).controls().restoreState(saved);
        assertThat(status().spentMicros()).isZero();
    }

    @Test
    void aMonthsSpendSurvivesARestartDaysLaterThroughTheStateFile(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        atAfternoon();
        LimitSpec monthly = LimitSpec.builder("org.spend.month", SPEND, 1_000_000)
                .calendar(CalendarPeriod.MONTH, LocalTime.MIDNIGHT, PARIS)
                .build();
        governor(monthly);
        dev.sluice.core.state.StateFile file = new dev.sluice.core.state.StateFile(dir.resolve("state.json"));
        dev.sluice.core.state.StateKeeper keeper =
                new dev.sluice.core.state.StateKeeper(governor, file, Duration.ofSeconds(15));
        governor.learner().onLearned(keeper::changed);
        governor.tryAdmit(call("a"), costing(700_000)).permit().settleAndRelease(spent(650_000, true));
        timer.advance(Duration.ofSeconds(15)); // the keeper saves within its interval, spend being worth keeping
        assertThat(file.read()).isNotNull();

        // two weeks later, still December in Paris: far older than the hour learned limits are trusted
        clock.advance(Duration.ofDays(14));
        governor.close();
        governor(monthly);
        int restored = new dev.sluice.core.state.StateKeeper(governor, file, Duration.ofSeconds(15)).restore();
        assertThat(restored).isEqualTo(1);
        assertThat(governor.controls().budgetStatuses("org.spend.month").get(0).spentMicros())
                .isEqualTo(650_000);
        assertThat(governor.tryAdmit(call("a"), costing(400_000)).rejection().decision())
                .isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
    }
}
