package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** {@link ExternalShare} directly; {@code dev.sluice.core.ExternalShareTest} runs it through the governor. */
class ExternalShareEstimateTest {

    private static final long CAPACITY = 6_000;
    private static final long WINDOW = 60_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 100 * SECOND;

    /** An estimate whose first answer, at {@link #T0}, started the samples. */
    private static ExternalShare sampling() {
        ExternalShare share = new ExternalShare();
        assertThat(share.observe(1_000, 1_000, 0, 0, CAPACITY, WINDOW, T0)).isFalse();
        return share;
    }

    @Test
    void theFirstAnswerOnlyStartsTheSamples() {
        ExternalShare share = new ExternalShare();
        assertThat(share.observe(1_000, 200, 0, 0, CAPACITY, WINDOW, T0)).isFalse();
        assertThat(share.share()).isZero();
    }

    /** Over 6 s the budget refilled 600; the provider shows 120 less than Sluice: others took a fifth of it. */
    @Test
    void aGapBetweenSluicesViewAndTheFigureIsOthersShareOfTheRefill() {
        ExternalShare share = sampling();
        assertThat(share.observe(1_000, 880, 0, 0, CAPACITY, WINDOW, T0 + 6 * SECOND))
                .isTrue();
        // the first sample sets the estimate
        assertThat(share.share()).isCloseTo(0.2, within(1e-9));
    }

    @Test
    void laterSamplesMoveTheEstimateByAMovingAverage() {
        ExternalShare share = sampling();
        share.observe(1_000, 880, 0, 0, CAPACITY, WINDOW, T0 + 6 * SECOND);
        // the mirror, lowered to 880 and refilling at 80 %, shows 1,360 six seconds later; the
        // provider 1,240: 120 more went to others, a sample of 0.4, and 30 % of the way to it
        share.observe(1_360, 1_240, 120, 0, CAPACITY, WINDOW, T0 + 12 * SECOND);
        assertThat(share.share()).isCloseTo(0.26, within(1e-9));
    }

    /**
     * Answers every quarter of a second, each showing the provider 10 under the mirror (less than
     * the noise tolerance of 60) and lowering it: over 3 s they add up to 120 of the 300 refilled.
     */
    @Test
    void correctionsBetweenSamplesAddUpToWhatOthersTook() {
        ExternalShare share = sampling();
        double corrections = 0;
        for (int i = 1; i < 12; i++) {
            assertThat(share.observe(1_000, 990, corrections, 0, CAPACITY, WINDOW, T0 + i * SECOND / 4))
                    .isFalse();
            corrections += 10; // the mirror lowered to the figure
        }
        assertThat(share.observe(1_000, 990, corrections, 0, CAPACITY, WINDOW, T0 + 3 * SECOND))
                .isTrue();
        assertThat(share.share()).isCloseTo(0.4, within(1e-9));
    }

    /**
     * A mirror that stands under the provider's figure (the estimate leaves others more than they
     * take, and figures never raise a mirror while calls are in flight) pulls the estimate down at
     * every sample, not only at the first: the provider's bucket may be full, its refill lost.
     */
    @Test
    void aMirrorStandingUnderTheFigurePullsTheEstimateDownAtEverySample() {
        ExternalShare share = sampling();
        share.restore(0.5);
        share.observe(0, 600, 0, 0, CAPACITY, WINDOW, T0 + 6 * SECOND);
        double afterOne = share.share();
        share.observe(0, 600, 0, 0, CAPACITY, WINDOW, T0 + 12 * SECOND);
        assertThat(afterOne).isCloseTo(0.35, within(1e-9));
        assertThat(share.share()).isCloseTo(0.245, within(1e-9));
    }

    @Test
    void answersCloserThanATwentiethOfTheWindowAreNoSample() {
        ExternalShare share = sampling();
        assertThat(share.observe(1_000, 880, 0, 0, CAPACITY, WINDOW, T0 + 2 * SECOND))
                .isFalse();
        assertThat(share.share()).isZero();
    }

    @Test
    void aGapWithinAHundredthOfTheCapacityIsNoise() {
        ExternalShare share = sampling();
        assertThat(share.observe(1_000, 940, 0, 0, CAPACITY, WINDOW, T0 + 6 * SECOND))
                .isFalse();
        assertThat(share.share()).isZero();
    }

    @Test
    void moreRoomThanSluiceExpectedPullsTheEstimateDown() {
        ExternalShare share = sampling();
        share.restore(0.5);
        assertThat(share.observe(500, 800, 0, 0, CAPACITY, WINDOW, T0 + 6 * SECOND))
                .isTrue();
        assertThat(share.share()).isCloseTo(0.35, within(1e-9));
    }

    @Test
    void theLastCrumbsOfAnEstimateAreGivenBackWhole() {
        ExternalShare share = sampling();
        share.restore(0.006);
        share.observe(1_000, 1_100, 0, 0, CAPACITY, WINDOW, T0 + 6 * SECOND); // more room than expected
        assertThat(share.share()).isZero();
    }

    @Test
    void sluiceNeverLeavesOthersMoreThanNineTenths() {
        ExternalShare share = sampling();
        share.restore(1.0);
        assertThat(share.share()).isEqualTo(ExternalShare.MAX);
        share.observe(6_000, 0, 0, 0, CAPACITY, WINDOW, T0 + 6 * SECOND);
        assertThat(share.share()).isEqualTo(ExternalShare.MAX);
    }

    /** Calls whose order of arrival is unknown explain more than the refill: the answer tells nothing of others. */
    @Test
    void anAnswerTheCallsInFlightCouldExplainIsNoSample() {
        ExternalShare share = sampling();
        assertThat(share.observe(1_000, 880, 0, 700, CAPACITY, WINDOW, T0 + 6 * SECOND))
                .isFalse();
        assertThat(share.share()).isZero();
        // the next sample spans from the last one taken, at T0: 12 s, 1,200 refilled
        share.observe(1_000, 760, 0, 0, CAPACITY, WINDOW, T0 + 12 * SECOND);
        assertThat(share.share()).isCloseTo(0.2, within(1e-9));
    }

    @Test
    void aSpanLongerThanTheWindowCountsOneWindowsRefill() {
        ExternalShare share = sampling();
        share.observe(1_000, -200, 0, 0, CAPACITY, WINDOW, T0 + 120 * SECOND); // a gap of 1,200 in 6,000
        assertThat(share.share()).isCloseTo(0.2, within(1e-9));
    }

    @Test
    void aRefusalSluiceDidNotExpectLeavesAQuarterOfWhatIsLeftToOthers() {
        ExternalShare share = new ExternalShare();
        assertThat(share.surprised(T0, T0 + SECOND)).isTrue();
        assertThat(share.share()).isCloseTo(0.225, within(1e-9));
    }

    /** Refusals of calls sent before the last raise are the same evidence again: a burst raises it once. */
    @Test
    void refusalsOfCallsSentBeforeTheLastRaiseChangeNothing() {
        ExternalShare share = new ExternalShare();
        share.surprised(T0, T0 + SECOND);
        assertThat(share.surprised(T0 + SECOND / 2, T0 + 2 * SECOND)).isFalse();
        assertThat(share.share()).isCloseTo(0.225, within(1e-9));
        assertThat(share.surprised(T0 + SECOND, T0 + 3 * SECOND)).isTrue();
        assertThat(share.share()).isCloseTo(0.39375, within(1e-9));
    }

    @Test
    void aSavedEstimateComesBackWithinItsBounds() {
        ExternalShare share = new ExternalShare();
        share.restore(-0.5);
        assertThat(share.share()).isZero();
        share.restore(0.4);
        assertThat(share.share()).isEqualTo(0.4);
    }
}
