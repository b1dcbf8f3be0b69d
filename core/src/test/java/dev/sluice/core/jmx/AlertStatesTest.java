package dev.sluice.core.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.jmx.AlertStates.Change;
import dev.sluice.core.jmx.AlertStates.Readings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/** The conditions evaluated as the shipped rules evaluate them, on a clock the test drives a check at a time. */
class AlertStatesTest {

    private static final long CHECK = AlertCondition.CHECK_INTERVAL.toNanos();

    private final AlertStates states = new AlertStates(1);
    private long now = 1_000_000_000L;

    /** Runs one check per interval for {@code d}, reading {@code readings.apply(now)}; every change announced. */
    private List<String> run(Duration d, LongFunction<Readings> readings) {
        List<String> changes = new ArrayList<>();
        for (long end = now + d.toNanos(); now < end; ) {
            now += CHECK;
            for (Change c : states.check(now, readings.apply(now))) {
                changes.add(describe(c));
            }
        }
        return changes;
    }

    private static String describe(Change c) {
        return (c.fired ? "fired " : "cleared ") + c.condition.ruleName + " " + c.key;
    }

    /** A counter growing by {@code perSecond} from {@code base} at {@code since}. */
    private static long growing(long base, double perSecond, long sinceNanos, long nowNanos) {
        return base + (long) (perSecond * (nowNanos - sinceNanos) / 1e9);
    }

    @Test
    void a429SpikeFiresOnceItHeldForTwoMinutesAndClearsOnceTheRateFalls() {
        assertThat(run(Duration.ofMinutes(1), t -> new Readings().provider429s("openai", 40)))
                .isEmpty();
        long start = now;
        LongFunction<Readings> storm = t -> new Readings().provider429s("openai", growing(40, 0.5, start, t));
        // the rate over the last minute passes 0.2/s 30 s into the storm; from there it must hold 2m
        assertThat(run(Duration.ofSeconds(135), storm)).isEmpty();
        assertThat(run(Duration.ofSeconds(15), storm)).containsExactly("fired SluiceProvider429Spike openai");
        assertThat(run(Duration.ofMinutes(3), storm)).as("once").isEmpty();

        long total = growing(40, 0.5, start, now);
        // the rate over the last minute falls to 0.25/s after 30 s, to 0.125/s after 45 s
        assertThat(run(Duration.ofSeconds(30), t -> new Readings().provider429s("openai", total)))
                .isEmpty();
        assertThat(run(Duration.ofSeconds(15), t -> new Readings().provider429s("openai", total)))
                .containsExactly("cleared SluiceProvider429Spike openai");
        assertThat(run(Duration.ofMinutes(10), t -> new Readings().provider429s("openai", total)))
                .isEmpty();
    }

    @Test
    void a429SpikeShorterThanItsHoldDoesNotFire() {
        run(Duration.ofMinutes(1), t -> new Readings().provider429s("openai", 0));
        long start = now;
        // 2/s for 45 s keeps the rate over the last minute above 0.2/s for 75 s: less than 2m
        List<String> changes =
                run(Duration.ofSeconds(45), t -> new Readings().provider429s("openai", growing(0, 2, start, t)));
        long total = growing(0, 2, start, now);
        changes.addAll(run(Duration.ofMinutes(5), t -> new Readings().provider429s("openai", total)));
        assertThat(changes).isEmpty();
    }

    @Test
    void aRateAtTheThresholdIsNoSpike() {
        long start = now;
        assertThat(run(Duration.ofMinutes(10), t -> new Readings().provider429s("openai", growing(0, 0.2, start, t))))
                .isEmpty();
    }

    @Test
    void theFirstCheckIsABaselineButAProviderSeenLaterCountsFromZero() {
        // 1000 refusals before anyone listened are no spike
        assertThat(run(Duration.ofMinutes(5), t -> new Readings().provider429s("openai", 1000)))
                .isEmpty();
        // a provider that first appears with refusals refused them since the last check
        long start = now;
        List<String> changes = run(
                Duration.ofMinutes(3),
                t -> new Readings().provider429s("openai", 1000).provider429s("anthropic", growing(5, 1, start, t)));
        assertThat(changes).containsExactly("fired SluiceProvider429Spike anthropic");
    }

    @Test
    void aQueueAboveEightyPercentOfItsDepthForAMinuteFiresAndClears() {
        // first seen at the first check, it must still hold a minute later
        assertThat(run(Duration.ofSeconds(60), t -> new Readings().queue("batch", 81, 100)))
                .isEmpty();
        assertThat(run(Duration.ofSeconds(15), t -> new Readings().queue("batch", 81, 100)))
                .containsExactly("fired SluiceQueueNearlyFull batch");
        assertThat(run(Duration.ofMinutes(2), t -> new Readings().queue("batch", 90, 100)))
                .isEmpty();
        assertThat(run(Duration.ofSeconds(15), t -> new Readings().queue("batch", 80, 100)))
                .containsExactly("cleared SluiceQueueNearlyFull batch");
    }

    @Test
    void aGrowingQueueFiresAfterFiveMinutesOfGrowthAboveTenWaiting() {
        long start = now;
        List<String> changes = run(
                Duration.ofMinutes(6), t -> new Readings().queue("default", (int) growing(11, 0.1, start, t), 100_000));
        assertThat(changes).containsExactly("fired SluiceQueueGrowing default");
        int top = (int) growing(11, 0.1, start, now);
        // a queue that stops growing clears as soon as the slope over 5m is no longer above 0
        long flat = now;
        List<String> after = run(
                Duration.ofMinutes(6),
                t -> new Readings().queue("default", (int) Math.max(0, top - growing(0, 0.2, flat, t)), 100_000));
        assertThat(after).containsExactly("cleared SluiceQueueGrowing default");
    }

    @Test
    void aSmallQueueThatGrowsIsNotAnAlert() {
        long start = now;
        assertThat(run(
                        Duration.ofMinutes(10),
                        t -> new Readings().queue("default", (int) Math.min(10, growing(0, 0.1, start, t)), 1000)))
                .isEmpty();
    }

    @Test
    void tokenPressureFiresAfterFiveMinutesAboveNinetyPercent() {
        assertThat(run(
                        Duration.ofSeconds(300),
                        t -> new Readings()
                                .tokenLimit("openai-tpm", "openai", 0.95)
                                .tokenLimit("openai-itpm", "openai", 0.5)))
                .isEmpty();
        assertThat(run(Duration.ofSeconds(15), t -> new Readings().tokenLimit("openai-tpm", "openai", 0.95)))
                .containsExactly("fired SluiceTokenPressure openai-tpm");
    }

    @Test
    void aLimitThatGoesAwayWhileUnderPressureClears() {
        assertThat(run(Duration.ofSeconds(315), t -> new Readings().tokenLimit("sim/k_1/m:tokens", "sim", 0.99)))
                .hasSize(1);
        assertThat(run(Duration.ofSeconds(15), t -> new Readings()))
                .containsExactly("cleared SluiceTokenPressure sim/k_1/m:tokens");
        assertThat(run(Duration.ofMinutes(1), t -> new Readings())).isEmpty();
    }

    @Test
    void anUngovernedClientFiresAtOnceAndClearsTenMinutesAfterItsLastConnection() {
        run(Duration.ofSeconds(15), t -> new Readings());
        assertThat(run(
                        Duration.ofSeconds(15),
                        t -> new Readings().ungoverned("api.openai.com", "HttpURLConnection", 1)))
                .containsExactly("fired SluiceUngovernedCalls api.openai.com via HttpURLConnection");
        assertThat(run(Duration.ofMinutes(9), t -> new Readings().ungoverned("api.openai.com", "HttpURLConnection", 3)))
                .isEmpty();
        assertThat(run(
                        Duration.ofMinutes(11),
                        t -> new Readings().ungoverned("api.openai.com", "HttpURLConnection", 3)))
                .containsExactly("cleared SluiceUngovernedCalls api.openai.com via HttpURLConnection");
    }

    @Test
    void aFaultFiresAtOnceAndClearsFiveMinutesLater() {
        run(Duration.ofSeconds(15), t -> new Readings().faults(2));
        assertThat(run(Duration.ofSeconds(15), t -> new Readings().faults(3))).containsExactly("fired SluiceFaults ");
        assertThat(run(Duration.ofMinutes(4), t -> new Readings().faults(3))).isEmpty();
        assertThat(run(Duration.ofMinutes(2), t -> new Readings().faults(3))).containsExactly("cleared SluiceFaults ");
    }

    @Test
    void aConditionThatClearedFiresAgainOnlyFiveMinutesLater() {
        assertThat(run(Duration.ofSeconds(75), t -> new Readings().queue("batch", 90, 100)))
                .hasSize(1);
        assertThat(run(Duration.ofSeconds(15), t -> new Readings().queue("batch", 0, 100)))
                .hasSize(1);
        List<String> flapping = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            flapping.addAll(run(Duration.ofSeconds(75), t -> new Readings().queue("batch", 90, 100)));
            flapping.addAll(run(Duration.ofSeconds(15), t -> new Readings().queue("batch", 0, 100)));
        }
        assertThat(flapping)
                .as("one fire and one clear in nine minutes of flapping, not six of each")
                .containsExactly("fired SluiceQueueNearlyFull batch", "cleared SluiceQueueNearlyFull batch");
    }

    @Test
    void aCheckAnnouncesAtMostTwentyChangesAndTheRestFollow() {
        Readings full = new Readings();
        for (int i = 0; i < 25; i++) {
            full.tokenLimit("limit-" + i, "openai", 0.99);
        }
        List<String> first = run(Duration.ofSeconds(315), t -> full);
        assertThat(first).hasSize(20);
        List<String> next = run(Duration.ofSeconds(15), t -> full);
        assertThat(next).hasSize(5);
        assertThat(first).doesNotContainAnyElementsOf(next);
    }

    @Test
    void subjectsPastTheBoundAreNotFollowed() {
        LongFunction<Readings> many = t -> {
            Readings r = new Readings();
            for (int i = 0; i < AlertStates.MOST_SUBJECTS + 50; i++) {
                r.tokenLimit("limit-" + i, "openai", 0.99);
            }
            return r;
        };
        List<String> changes = run(Duration.ofMinutes(8), many);
        assertThat(changes).hasSize(AlertStates.MOST_SUBJECTS).doesNotContain("fired SluiceTokenPressure limit-200");
    }

    @Test
    void aTimeScaleCompressesWindowsHoldsAndChecks() {
        AlertStates fast = new AlertStates(0.01);
        assertThat(fast.checkNanos()).isEqualTo(150_000_000L);
        assertThat(fast.holdNanos(AlertCondition.PROVIDER_429_SPIKE)).isEqualTo(1_200_000_000L);
        assertThat(fast.windowNanos(AlertCondition.PROVIDER_429_SPIKE)).isEqualTo(600_000_000L);
        assertThatThrownBy(() -> new AlertStates(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeScale must be > 0, was 0.0");
    }

    @Test
    void samplesGiveTheRateIncreaseAndSlopeOfTheirWindow() {
        AlertStates.Samples s = new AlertStates.Samples(60_000_000_000L, CHECK);
        assertThat(s.ratePerSecond()).isZero();
        for (int i = 0; i <= 8; i++) {
            s.add(i * CHECK, 10 + 3 * i); // 3 every 15 s: 0.2/s; only the last minute is kept
        }
        assertThat(s.spanNanos()).isEqualTo(60_000_000_000L);
        assertThat(s.increase()).isEqualTo(12);
        assertThat(s.ratePerSecond()).isEqualTo(0.2);
        assertThat(s.slopePerSecond()).isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
    }
}
