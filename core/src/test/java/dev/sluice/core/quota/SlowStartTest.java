package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import org.junit.jupiter.api.Test;

class SlowStartTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 100 * SECOND;
    /** The first answer is late from here: the window opens. */
    private static final long WIDENS = T0 + 3 * SECOND;

    /** What a call whose charges do not matter to the test charges the provider. */
    private static final long[] NONE = new long[Dimension.values().length];

    private static long[] charges(Dimension dimension, long amount) {
        long[] c = new long[Dimension.values().length];
        c[dimension.ordinal()] = amount;
        return c;
    }

    @Test
    void theFirstCallGoesAloneUntilTheWindowWidens() {
        SlowStart s = new SlowStart(WIDENS);
        assertThat(s.window(T0)).isEqualTo(1);
        assertThat(s.nanosUntilRoom(T0)).isZero();
        s.admitted(NONE);
        assertThat(s.nanosUntilRoom(T0 + SECOND)).isEqualTo(2 * SECOND);
    }

    @Test
    void aLateFirstAnswerOpensTheWindowToTenCalls() {
        SlowStart s = new SlowStart(WIDENS);
        assertThat(s.window(WIDENS)).isEqualTo(SlowStart.INITIAL_WINDOW);
        for (int i = 0; i < SlowStart.INITIAL_WINDOW; i++) {
            assertThat(s.nanosUntilRoom(WIDENS)).isZero();
            s.admitted(NONE);
        }
        assertThat(s.nanosUntilRoom(WIDENS)).isEqualTo(Bucket.ON_RELEASE);
    }

    @Test
    void eachAcceptedAnswerWidensTheWindowByOne() {
        SlowStart s = new SlowStart(WIDENS);
        s.admitted(NONE);
        s.accepted();
        // accepted before the wait ran out: the window is open at once
        assertThat(s.window(T0)).isEqualTo(SlowStart.INITIAL_WINDOW + 1);
        s.accepted();
        assertThat(s.window(T0)).isEqualTo(SlowStart.INITIAL_WINDOW + 2);
    }

    /** Calls out past the first one fill the window only a release empties: time alone does not help. */
    @Test
    void aFullWindowWaitsForACallToEnd() {
        SlowStart s = new SlowStart(WIDENS);
        s.accepted();
        for (int i = 0; i < SlowStart.INITIAL_WINDOW + 1; i++) {
            s.admitted(NONE);
        }
        assertThat(s.nanosUntilRoom(T0)).isEqualTo(Bucket.ON_RELEASE);
        s.released(NONE);
        assertThat(s.nanosUntilRoom(T0)).isZero();
        assertThat(s.inFlight()).isEqualTo(SlowStart.INITIAL_WINDOW);
    }

    @Test
    void releasesNeverCountBelowNothing() {
        SlowStart s = new SlowStart(WIDENS);
        s.released(NONE);
        assertThat(s.inFlight()).isZero();
        s.admitted(NONE);
        assertThat(s.inFlight()).isEqualTo(1);
    }

    /** A herd whose waits run out together must not go at once: the window once widened, no more. */
    @Test
    void aCallWhoseWaitRanOutGoesOnlyWithinTheWidenedWindow() {
        SlowStart s = new SlowStart(WIDENS);
        for (int i = 0; i < SlowStart.INITIAL_WINDOW - 1; i++) {
            s.admitted(NONE);
        }
        assertThat(s.admitsAtDeadline()).isTrue();
        s.admitted(NONE);
        assertThat(s.admitsAtDeadline()).isFalse();
        s.accepted();
        assertThat(s.admitsAtDeadline()).isTrue();
    }

    @Test
    void aCopyKeepsWhatAnswersWidenedButNotTheCallsOut() {
        SlowStart s = new SlowStart(WIDENS);
        s.admitted(NONE);
        s.accepted();
        SlowStart copy = s.copy();
        assertThat(copy.window(T0)).isEqualTo(SlowStart.INITIAL_WINDOW + 1);
        assertThat(copy.inFlight()).isZero();
        assertThat(new SlowStart(WIDENS).copy().window(T0)).isEqualTo(1);
    }

    /** The provider counts the calls sent before any limit was known: a budget learned later owes them. */
    @Test
    void whatTheCallsStillOutChargeIsOwedByABudgetLearnedLater() {
        SlowStart s = new SlowStart(WIDENS);
        s.admitted(charges(Dimension.TOTAL_TOKENS, 500));
        s.admitted(charges(Dimension.TOTAL_TOKENS, 300));
        s.released(charges(Dimension.TOTAL_TOKENS, 300));
        assertThat(s.outBeforeLimits(Dimension.TOTAL_TOKENS)).isEqualTo(500);
        assertThat(s.outBeforeLimits(Dimension.REQUESTS)).isZero();
        s.released(charges(Dimension.TOTAL_TOKENS, 900));
        assertThat(s.outBeforeLimits(Dimension.TOTAL_TOKENS)).isZero();
    }

    @Test
    void aCopyOwesWhatTheScopeItReplacedStillHasOut() {
        SlowStart s = new SlowStart(WIDENS);
        s.admitted(charges(Dimension.REQUESTS, 1));
        SlowStart copy = s.copy();
        copy.admitted(charges(Dimension.REQUESTS, 1));
        assertThat(copy.outBeforeLimits(Dimension.REQUESTS)).isEqualTo(2);
        assertThat(copy.copy().outBeforeLimits(Dimension.REQUESTS)).isEqualTo(2);
    }
}
