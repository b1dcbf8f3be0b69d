package dev.sluice.config;

import static dev.sluice.config.Fixtures.loadYaml;
import static dev.sluice.config.Fixtures.yamlProblems;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A token bucket's burst: a count or a duration of the rate, defaults from what providers document. */
class BurstConfigTest {
    @TempDir
    Path dir;

    @Test
    void aBurstIsACountOrADurationOfTheRate() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "limits:",
                "  - {id: counted, dimension: requests, capacity: 600, window: 1m, burst: 10}",
                "  - {id: timed, dimension: requests, capacity: 600, window: 1m, burst: 2s}",
                "  - {id: tokens, dimension: input_tokens, capacity: 6M, window: 1m, burst: 1.5k}",
                "  - {id: whole, dimension: requests, capacity: 600, window: 1m, burst: 1m}",
                "  - {id: plain, dimension: requests, capacity: 600, window: 1m}");
        assertThat(c.limit("counted").orElseThrow().burst()).isEqualTo(10);
        assertThat(c.limit("timed").orElseThrow().burst()).isEqualTo(20);
        assertThat(c.limit("timed").orElseThrow().declaredBurst()).isEqualTo("2s");
        assertThat(c.limit("tokens").orElseThrow().burst()).isEqualTo(1_500);
        assertThat(c.limit("whole").orElseThrow().burst()).isZero(); // the capacity
        assertThat(c.limit("plain").orElseThrow().burst()).isZero();
    }

    @Test
    void providersThatDocumentShorterPeriodsGetOneSecondOfTheirRate() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "providers:",
                "  - name: openai",
                "    kind: openai",
                "    limits:",
                "      - {id: o-rpm, dimension: requests, capacity: 60000, window: 1m}",
                "      - {id: o-slow, dimension: requests, capacity: 30, window: 1m}",
                "      - {id: o-set, dimension: requests, capacity: 600, window: 1m, burst: 50}",
                "  - name: azure",
                "    kind: azure-openai",
                "    limits:",
                "      - {id: a-tpm, dimension: total_tokens, capacity: 120k, window: 1m}",
                "  - name: anthropic",
                "    kind: anthropic",
                "    limits:",
                "      - {id: c-rpm, dimension: requests, capacity: 600, window: 1m}",
                "tenants:",
                "  - name: search",
                "    limits:",
                "      - {id: t-rpm, dimension: requests, capacity: 600, window: 1m}");
        assertThat(c.limit("o-rpm").orElseThrow().burst()).isEqualTo(1_000);
        assertThat(c.limit("o-slow").orElseThrow().burst()).isEqualTo(1); // never less than one call
        assertThat(c.limit("o-set").orElseThrow().burst()).isEqualTo(50);
        assertThat(c.limit("a-tpm").orElseThrow().burst()).isEqualTo(2_000);
        assertThat(c.limit("c-rpm").orElseThrow().burst()).isZero(); // Anthropic refills up to the limit
        assertThat(c.limit("t-rpm").orElseThrow().burst()).isZero(); // Sluice's own: its capacity
    }

    @Test
    void anInvalidBurstNamesTheFieldAndWhy() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "limits:",
                        "  - {id: l0, dimension: requests, capacity: 600, window: 1m, burst: -5}",
                        "  - {id: l1, dimension: requests, capacity: 600, window: 1m, burst: 0}",
                        "  - {id: l2, dimension: requests, capacity: 600, window: 1m, burst: 601}",
                        "  - {id: l3, dimension: requests, capacity: 600, window: 1m, burst: 2 seconds}",
                        "  - {id: l4, dimension: requests, capacity: 600, window: 1m, burst: 2h}",
                        "  - {id: l5, dimension: requests, capacity: 60, window: 1m, burst: 10ms}",
                        "  - {id: l6, dimension: requests, capacity: 60, window: 1m, burst: -1s}",
                        "  - {id: l7, dimension: requests, capacity: 60, window: 1m, algorithm: fixed_window, burst: 5}",
                        "  - {id: l8, dimension: concurrency, capacity: 8, burst: 5}"))
                .containsExactly(
                        "limits[0].burst: -5 is not allowed, must be > 0 (the most let through at once) (sluice.yaml line 2)",
                        "limits[1].burst: 0 is not allowed, must be > 0 (the most let through at once) (sluice.yaml line 3)",
                        "limits[2].burst: 601 is not allowed, must be at most the capacity, 600 (sluice.yaml line 4)",
                        "limits[3].burst: \"2 seconds\" is not a count or a duration; write e.g. 10, 2k or 2s (sluice.yaml line 5)",
                        "limits[4].burst: 2h is longer than the window 1m: a burst is at most the capacity (sluice.yaml line 6)",
                        "limits[5].burst: 10ms of 60 per 1m is less than 1; give a longer duration or a count"
                                + " (sluice.yaml line 7)",
                        "limits[6].burst: -1s is not allowed, must be > 0 (a duration of the rate, e.g. 2s) (sluice.yaml line 8)",
                        "limits[7].burst: 5 is only allowed with algorithm token_bucket (a fixed_window limit has no burst)"
                                + " (sluice.yaml line 9)",
                        "limits[8].burst: 5 is only allowed with algorithm token_bucket (a concurrency limit has no burst)"
                                + " (sluice.yaml line 10)");
    }

    @Test
    void theBuilderTakesACountOrADuration() {
        LimitConfig timed = LimitConfig.builder()
                .dimension(Dimension.REQUESTS)
                .capacity(120)
                .window(Duration.ofMinutes(1))
                .burst(Duration.ofSeconds(2))
                .build();
        assertThat(timed.burst()).isEqualTo(4);
        assertThat(timed.toBuilder().burst(7).build().burst()).isEqualTo(7);
        assertThat(timed.toString()).contains("burst 4");
    }
}
