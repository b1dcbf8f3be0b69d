package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link AdaptivePace} directly; {@code dev.sluice.core.AdaptivePaceTest} runs it through the governor. */
class AdaptivePaceRulesTest {

    private final FakeClock clock = new FakeClock();

    /** A pace of {@code first} calls a minute, as a scope starts one at its first refusal. */
    private AdaptivePace paceOf(long first) {
        long burst = AdaptivePace.burstOf(first);
        LimitSpec spec = LimitSpec.builder("gemini:" + AdaptivePace.BUDGET_NAME, Dimension.REQUESTS, first)
                .window(Duration.ofMillis(AdaptivePace.WINDOW_MILLIS))
                .burst(burst >= first ? 0 : burst)
                .source(LimitSpec.Source.LEARNED)
                .build();
        Bucket bucket = Limit.forScope(spec, "gemini", clock.nanoTime(), clock.epochMillis(), Guarantees.none())
                .buckets()
                .iterator()
                .next();
        return AdaptivePace.over(bucket, clock.nanoTime());
    }

    private static long pace(AdaptivePace p) {
        return p.bucket().limit().capacity();
    }

    private void refused(AdaptivePace p, double sentPerMinute) {
        p.refused(sentPerMinute, clock.nanoTime(), clock.epochMillis());
    }

    private void acceptedAfter(AdaptivePace p, Duration d) {
        clock.advance(d);
        p.accepted(clock.nanoTime(), clock.epochMillis());
    }

    @Test
    void theFirstPaceIsSeventyPercentOfTheRateSluiceSentAtWithinItsBounds() {
        assertThat(AdaptivePace.firstPace(100)).isEqualTo(70);
        assertThat(AdaptivePace.firstPace(2)).isEqualTo(6);
        assertThat(AdaptivePace.firstPace(1e9)).isEqualTo(1_000_000);
    }

    @Test
    void aRefusalCutsThePaceToSeventyPercentOfWhatWasSentOrOfThePaceIfLower() {
        AdaptivePace p = paceOf(100);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 80);
        assertThat(pace(p)).isEqualTo(56);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 500);
        assertThat(pace(p)).isEqualTo(39);
    }

    /** The calls already in flight meet the same limit: their refusals are one piece of evidence. */
    @Test
    void refusalsWithinASecondOfTheLastCutChangeNothing() {
        AdaptivePace p = paceOf(100);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 80);
        clock.advance(Duration.ofMillis(900));
        refused(p, 80);
        assertThat(pace(p)).isEqualTo(56);
    }

    @Test
    void acceptedAnswersClimbBackLinearlyToTheRefusedRateThenProbeAQuarterHigherEachSecond() {
        AdaptivePace p = paceOf(100);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 80);
        List<Long> paces = new ArrayList<>();
        for (int s = 0; s < 14; s++) {
            acceptedAfter(p, Duration.ofSeconds(1));
            paces.add(pace(p));
        }
        // 1.6 a second, rounded up to 2, back at 80 within the 15 s
        assertThat(paces.subList(0, 4)).containsExactly(58L, 60L, 62L, 64L);
        assertThat(paces.get(11)).isEqualTo(80);
        assertThat(paces.subList(12, 14)).containsExactly(100L, 125L);
    }

    @Test
    void theClimbComesOnceASecondAtMost() {
        AdaptivePace p = paceOf(100);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 80);
        assertThat(p.increaseDue(clock.nanoTime() + 999_999_999L)).isFalse();
        acceptedAfter(p, Duration.ofMillis(500));
        assertThat(pace(p)).isEqualTo(56);
        assertThat(p.increaseDue(clock.nanoTime() + 500_000_000L)).isTrue();
    }

    /** Seconds with no answer at all earned nothing: at most five seconds' worth at once. */
    @Test
    void aLongSilenceEarnsAtMostFiveSecondsOfClimb() {
        AdaptivePace p = paceOf(100);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 80);
        acceptedAfter(p, Duration.ofMinutes(1));
        assertThat(pace(p)).isEqualTo(64); // 56 + 5 x 1.6
    }

    @Test
    void theBucketHoldsTwoSecondsOfThePace() {
        assertThat(AdaptivePace.burstOf(600)).isEqualTo(20);
        assertThat(AdaptivePace.burstOf(10)).isEqualTo(1);
        AdaptivePace p = paceOf(600);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 600);
        assertThat(pace(p)).isEqualTo(420);
        assertThat(p.bucket().limit().burst()).isEqualTo(14);
    }

    @Test
    void thePaceNeverDropsBelowSixCallsAMinute() {
        AdaptivePace p = paceOf(8);
        clock.advance(Duration.ofSeconds(2));
        refused(p, 1);
        assertThat(pace(p)).isEqualTo(6);
    }
}
