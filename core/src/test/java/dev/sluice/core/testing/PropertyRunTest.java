package dev.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a property failure tells its reader, and that its seed replays it. */
class PropertyRunTest {

    static final Gen<Long> COUNTS = Gen.longs(0, 1_000_000);

    @Test
    void aSeedDrawsTheSameInputsEveryTime() {
        List<Long> first = new ArrayList<>();
        List<Long> second = new ArrayList<>();
        PropertyRun.forAll(42, 100, trial -> first.add(trial.draw("n", COUNTS)));
        PropertyRun.forAll(42, 100, trial -> second.add(trial.draw("n", COUNTS)));
        assertThat(first).hasSize(100).isEqualTo(second);
    }

    @Test
    void aFailureNamesItsSeedTryAndInputs() {
        assertThatThrownBy(() -> PropertyRun.forAll(7, 1_000, trial -> {
                    long n = trial.draw("n", COUNTS);
                    String text = trial.draw("text", Gen.of("a\"b", "x".repeat(1_000)));
                    assertThat(n).as("n").isLessThan(900_000);
                }))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(
                        "replay with -Dsluice.seed=7 -Dtest=PropertyRunTest#aFailureNamesItsSeedTryAndInputs")
                .hasMessageMatching(
                        "(?s)Property failed on try \\d+ of 1000 .*\n  n = \\d+\n  text = \".*\n.*\\[n\\].*");
    }

    @Test
    void rangesDrawTheirEnds() {
        List<Long> drawn = new ArrayList<>();
        PropertyRun.forAll(1, 200, trial -> drawn.add(trial.draw("n", Gen.longs(-3, Long.MAX_VALUE))));
        assertThat(drawn).contains(-3L, 0L, Long.MAX_VALUE).allMatch(n -> n >= -3);
    }
}
