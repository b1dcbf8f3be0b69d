package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The admitted total at a past moment: the first sample at or after it, erring towards later. */
class AdmittedSamplesTest {

    private static final long MS = 1_000_000L;

    @Test
    void answersWithTheFirstSampleAtOrAfterTheMoment() {
        AdmittedSamples samples = new AdmittedSamples();
        samples.sample(0, 100 * MS);
        samples.sample(10, 150 * MS);
        samples.sample(25, 200 * MS);
        assertThat(samples.totalAt(100 * MS, 40)).isEqualTo(0);
        assertThat(samples.totalAt(120 * MS, 40)).isEqualTo(10);
        assertThat(samples.totalAt(200 * MS, 40)).isEqualTo(25);
        assertThat(samples.totalAt(201 * MS, 40))
                .as("later than every sample: the total now")
                .isEqualTo(40);
        assertThat(samples.totalAt(0, 40))
                .as("older than every sample: the oldest")
                .isEqualTo(0);
    }

    @Test
    void samplesAtMostOnceAPeriod() {
        AdmittedSamples samples = new AdmittedSamples();
        samples.sample(0, 100 * MS);
        samples.sample(5, 110 * MS); // within 20 ms of the last: not kept
        assertThat(samples.totalAt(105 * MS, 7)).isEqualTo(7);
    }

    @Test
    void keepsTheLatestSixtyFour() {
        AdmittedSamples samples = new AdmittedSamples();
        for (int i = 1; i <= 100; i++) {
            samples.sample(i, i * 20 * MS);
        }
        assertThat(samples.totalAt(37 * 20 * MS, 1_000))
                .as("the 37th sample is gone: the oldest kept")
                .isEqualTo(37);
        assertThat(samples.totalAt(36 * 20 * MS, 1_000)).isEqualTo(37);
        assertThat(samples.totalAt(80 * 20 * MS, 1_000)).isEqualTo(80);
    }
}
