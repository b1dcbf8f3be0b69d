package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.bucketOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one rule the MBeans, a reload and code apply before setting a limit's burst. */
class BurstSettingTest {

    private final FakeClock clock = new FakeClock();

    private Limit limit(LimitSpec.Builder spec) {
        return bucketOf(spec.build(), clock).limit();
    }

    private static LimitSpec.Builder tokens(long capacity) {
        return LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, capacity).window(Duration.ofMinutes(1));
    }

    @Test
    void aConfiguredTokenBucketTakesEveryBurstFromZeroToItsCapacity() {
        Limit tpm = limit(tokens(600));
        assertThat(BurstSetting.refusal(tpm, 0)).as("0: the capacity").isNull();
        assertThat(BurstSetting.refusal(tpm, 1)).isNull();
        assertThat(BurstSetting.refusal(tpm, 600)).isNull();
    }

    @Test
    void aBurstAboveTheCapacityIsRefusedNamingTheCapacity() {
        assertThat(BurstSetting.refusal(limit(tokens(600)), 601))
                .isEqualTo("burst must be at most the capacity, 600, was 601");
    }

    /** The capacity an operator set live, not the configured one, bounds the burst. */
    @Test
    void theBoundIsTheCapacityAsItIsNow() {
        Limit tpm = limit(tokens(600));
        tpm.setCapacity(300, clock.nanoTime(), clock.epochMillis());
        assertThat(BurstSetting.refusal(tpm, 400)).isEqualTo("burst must be at most the capacity, 300, was 400");
        tpm.setCapacity(1_000, clock.nanoTime(), clock.epochMillis());
        assertThat(BurstSetting.refusal(tpm, 900)).isNull();
    }

    @Test
    void aNegativeBurstIsRefusedSayingWhatZeroMeans() {
        assertThat(BurstSetting.refusal(limit(tokens(600)), -1))
                .isEqualTo("burst must be >= 0 (0: the capacity), was -1");
    }

    @Test
    void onlyTokenBucketsHaveABurst() {
        Limit window = limit(tokens(600).algorithm(Algorithm.FIXED_WINDOW));
        assertThat(BurstSetting.refusal(window, 100))
                .isEqualTo("limit tpm is a fixed_window limit and has no burst; only token buckets have one");
        Limit slots = limit(LimitSpec.builder("slots", Dimension.CONCURRENCY, 8));
        assertThat(BurstSetting.refusal(slots, 0))
                .as("even the burst that means the capacity")
                .isEqualTo("limit slots is a concurrency limit and has no burst; only token buckets have one");
    }

    /** A learned or ramped limit is driven by something else: a burst set by hand would be overwritten. */
    @Test
    void aLimitSluiceSetsItselfRefusesABurstAndSaysWhatToTuneInstead() {
        Limit learned = QuotaFixtures.learnedBucket(600, Duration.ofMinutes(1), 0, clock)
                .limit();
        assertThat(BurstSetting.refusal(learned, 100))
                .isEqualTo("limit openai/k_1/gpt:tokens was learned from the provider's headers and follows them;"
                        + " set the burst of a configured limit mirroring it");
        Limit ramped = limit(tokens(600).source(LimitSpec.Source.RAMP));
        assertThat(BurstSetting.refusal(ramped, 100))
                .isEqualTo("limit tpm is set by its provider's ramp; tune the Ramp");
    }

    /** Which limit it is counts before the figure: a window never hears that its burst is too large. */
    @Test
    void aLimitWithoutABurstSaysSoWhateverTheFigure() {
        Limit window = limit(tokens(600).algorithm(Algorithm.FIXED_WINDOW));
        assertThat(BurstSetting.refusal(window, -5)).contains("has no burst");
        assertThat(BurstSetting.refusal(window, 10_000)).contains("has no burst");
    }
}
