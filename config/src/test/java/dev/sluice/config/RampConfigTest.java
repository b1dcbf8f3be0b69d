package dev.sluice.config;

import static dev.sluice.config.Fixtures.loadYaml;
import static dev.sluice.config.Fixtures.yamlProblems;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A provider's ramp: declared, built in for the providers documenting acceleration limits, or off. */
class RampConfigTest {
    @TempDir
    Path dir;

    @Test
    void aRampGrowsByAFactorOrFollowsASchedule() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "providers:",
                "  - name: grow",
                "    kind: gemini",
                "    ramp: {growth: 1.5, interval: 10s, floor: 5, latencyP95: 3s, onTrip: step_back}",
                "  - name: migrate",
                "    kind: gemini",
                "    match: {hosts: [migrate.example]}",
                "    limits: [{dimension: requests, capacity: 600, window: 1m}]",
                "    ramp: {startShare: 0.1, over: 2h, queueWaitP95: 500ms}");
        RampConfig grow = c.providers().get(0).ramp();
        assertThat(grow.scheduled()).isFalse();
        assertThat(grow.growth()).isEqualTo(1.5);
        assertThat(grow.interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(grow.floor()).isEqualTo(5);
        assertThat(grow.latencyP95()).isEqualTo(Duration.ofSeconds(3));
        assertThat(grow.onTrip()).isEqualTo(RampAction.STEP_BACK);
        RampConfig migrate = c.providers().get(1).ramp();
        assertThat(migrate.scheduled()).isTrue();
        assertThat(migrate.startShare()).isEqualTo(0.1);
        assertThat(migrate.over()).isEqualTo(Duration.ofHours(2));
        assertThat(migrate.onTrip()).isEqualTo(RampAction.HOLD);
        assertThat(c.providers().get(1).requestsPerSecond()).isEqualTo(10.0);
    }

    @Test
    void providersDocumentingAccelerationLimitsGetABuiltInRampOthersNone() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "providers:",
                "  - name: openai",
                "    kind: openai",
                "    limits: [{dimension: requests, capacity: 600, window: 1m}]",
                "  - name: anthropic",
                "    kind: anthropic",
                "    limits: [{dimension: requests, capacity: 1200, window: 1m}]",
                "  - name: quiet",
                "    kind: anthropic",
                "    match: {hosts: [quiet.example]}",
                "    limits: [{dimension: requests, capacity: 1200, window: 1m}]",
                "    ramp: {enabled: false}",
                "  - name: azure",
                "    kind: azure-openai",
                "    match: {hosts: [acme.openai.azure.com]}",
                "    limits: [{dimension: requests, capacity: 600, window: 1m}]",
                "  - name: unlimited",
                "    kind: openai",
                "    match: {hosts: [other.example]}");
        RampConfig openai = c.providers().get(0).ramp();
        assertThat(openai.isBuiltIn()).isTrue();
        assertThat(openai.growth()).isEqualTo(2);
        assertThat(openai.interval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(openai.floor()).isEqualTo(5); // half of 10 a second
        assertThat(openai.onTrip()).isEqualTo(RampAction.STEP_BACK);
        assertThat(c.providers().get(1).ramp().floor()).isEqualTo(10);
        assertThat(c.providers().get(2).ramp()).isNull();
        assertThat(c.providers().get(3).ramp()).isNull(); // Azure documents no acceleration limit
        assertThat(c.providers().get(4).ramp()).isNull(); // no requests limit to take half of
    }

    @Test
    void anInvalidRampNamesTheFieldAndWhy() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: a",
                        "    kind: gemini",
                        "    ramp: {growth: 0.5, interval: 0s, floor: -1, rejectedShare: 2, onTrip: wait}",
                        "  - name: b",
                        "    kind: gemini",
                        "    match: {hosts: [b.example]}",
                        "    ramp: {startShare: 1.5, growth: 2}"))
                .containsExactly(
                        "providers[0].ramp.growth: 0.5 is not allowed, must be > 1 (sluice.yaml line 4)",
                        "providers[0].ramp.interval: 0s is not allowed, must be > 0 (sluice.yaml line 4)",
                        "providers[0].ramp.floor: -1 is not allowed, must be > 0 (calls a second) (sluice.yaml line 4)",
                        "providers[0].ramp.rejectedShare: 2 is not allowed, must be between 0 (excluded) and 1"
                                + " (sluice.yaml line 4)",
                        "providers[0].ramp.onTrip: \"wait\" is not allowed, must be one of: hold, step_back"
                                + " (sluice.yaml line 4)",
                        "providers[1].ramp.over: required but missing (sluice.yaml line 8)",
                        "providers[1].ramp.startShare: 1.5 is not allowed, must be between 0 and 1 (both excluded)"
                                + " (sluice.yaml line 8)",
                        "providers[1].ramp.startShare: a schedule ramps a share of the provider's requests limit: declare"
                                + " one under its limits (sluice.yaml line 8)",
                        "providers[1].ramp.growth: give growth (a factor per interval) or startShare (a schedule), not"
                                + " both (sluice.yaml line 8)");
    }
}
