package dev.sluice.config;

import static dev.sluice.config.Fixtures.loadYaml;
import static dev.sluice.config.Fixtures.write;
import static dev.sluice.config.Fixtures.yamlProblems;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How durations, counts and other scalars may be written. */
class ValuesTest {
    @TempDir
    Path dir;

    @Test
    void durationsAcceptUnitsDecimalsAndIso8601() throws Exception {
        RetryConfig r = loadYaml(
                        dir,
                        "retry:",
                        "  baseBackoff: 250ms",
                        "  maxBackoff: 1.5m",
                        "  budgetWindow: PT10S",
                        "  maxHintWait: 0.5h",
                        "leaseTimeout: 1d")
                .retry();
        assertThat(r.baseBackoff()).isEqualTo(Duration.ofMillis(250));
        assertThat(r.maxBackoff()).isEqualTo(Duration.ofSeconds(90));
        assertThat(r.budgetWindow()).isEqualTo(Duration.ofSeconds(10));
        assertThat(r.maxHintWait()).isEqualTo(Duration.ofMinutes(30));
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("P1D")).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void durationsAreWrittenBackInTheirShortestExactForm() {
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ofHours(24))).isEqualTo("1d");
        assertThat(Durations.format(Duration.ofMinutes(60))).isEqualTo("1h");
    }

    @Test
    void capacitiesAcceptUnderscoresAndSuffixes() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "limits:",
                "  - {id: a, dimension: requests, capacity: 200000, window: 1m}",
                "  - {id: b, dimension: requests, capacity: 200_000, window: 1m}",
                "  - {id: c, dimension: requests, capacity: 200k, window: 1m}",
                "  - {id: d, dimension: requests, capacity: 1.5M, window: 1m}",
                "  - {id: e, dimension: spend, capacity: 2G, window: 1d}",
                "  - {id: f, dimension: requests, capacity: \"30k\", window: 1m}",
                "  - {id: g, dimension: requests, capacity: 1e3, window: 1m}",
                "  - {id: h, dimension: spend, capacity: 500m, window: 1d}");
        assertThat(c.limits())
                .extracting(LimitConfig::capacity)
                .containsExactly(
                        200_000L, 200_000L, 200_000L, 1_500_000L, 2_000_000_000L, 30_000L, 1_000L, 500_000_000L);
    }

    @Test
    void badCapacitiesAreExplained() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "limits:",
                        "  - {dimension: requests, capacity: 1.2345k, window: 1m}",
                        "  - {dimension: requests, capacity: 20x, window: 2m}",
                        "  - {dimension: requests, capacity: \"500\", window: 3m}",
                        "  - {dimension: requests, capacity: 99999999999999999999, window: 4m}",
                        "  - {dimension: requests, capacity: 2.5, window: 5m}"))
                .containsExactly(
                        "limits[0].capacity: \"1.2345k\" is not a whole number (sluice.yaml line 2)",
                        "limits[1].capacity: \"20x\" is not a count; write e.g. 200000, 200_000, 200k or 1.5M (sluice.yaml line 3)",
                        "limits[2].capacity: \"500\" is quoted; write numbers without quotes (sluice.yaml line 4)",
                        "limits[3].capacity: 99999999999999999999 is too large (sluice.yaml line 5)",
                        "limits[4].capacity: 2.5 is not a whole number (sluice.yaml line 6)");
    }

    @Test
    void badDurationsAreExplained() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "retry:",
                        "  baseBackoff: 5 s",
                        "  maxBackoff: P1M",
                        "  budgetWindow: true",
                        "  maxHintWait: -1s"))
                .containsExactly(
                        "retry.baseBackoff: \"5 s\" is not a duration; write e.g. 500ms, 10s, 1.5m, 1h, 1d or PT1M (sluice.yaml line 2)",
                        "retry.maxBackoff: \"P1M\" is not a duration; write e.g. 500ms, 10s, 1.5m, 1h, 1d or PT1M (sluice.yaml line 3)",
                        "retry.budgetWindow: expected a duration, got true; write e.g. 500ms, 10s, 1.5m, 1h, 1d or PT1M"
                                + " (sluice.yaml line 4)",
                        "retry.maxHintWait: -1s is not allowed, must be >= 0 (sluice.yaml line 5)");
    }

    @Test
    void notANumberIsNotANumber() throws Exception {
        assertThat(yamlProblems(dir, "estimation:", "  charsPerToken: .inf"))
                .containsExactly("estimation.charsPerToken: expected a number, got .inf (sluice.yaml line 2)");
    }

    @Test
    void anEmptyFileOrEmptySectionsMeanDefaults() throws Exception {
        Path empty = write(dir, "empty.yaml", "# nothing yet\n");
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder().file(empty).build());
        assertThat(c).isEqualTo(SluiceConfig.defaults());
        assertThat(c.origin()).isEqualTo("file " + empty);
        assertThat(loadYaml(dir, "retry:", "estimation:", "providers:")).isEqualTo(SluiceConfig.defaults());
    }

    @Test
    void yamlAnchorsCanShareALimitDefinition() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "tenants:",
                "  - name: a",
                "    limits: [&budget {dimension: total_tokens, capacity: 100k, window: 1h}]",
                "  - name: b",
                "    limits: [*budget]");
        assertThat(c.allLimits())
                .extracting(LimitConfig::id)
                .containsExactly("tenant.a.total_tokens.1h", "tenant.b.total_tokens.1h");
    }

    @Test
    void scalarsStandInForOneElementLists() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "providers:",
                "  - name: vllm",
                "    kind: openai-compatible",
                "    match: {hosts: vllm.local}",
                "limits:",
                "  - {dimension: requests, capacity: 5, window: 1s, models: gpt-4o}");
        assertThat(c.providers().get(0).match().hosts()).containsExactly("vllm.local");
        assertThat(c.limits().get(0).models()).containsExactly("gpt-4o");
    }
}
