package dev.sluice.simulator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Scope;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.fault.Faults;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    @Test
    void theExampleCommandLineConfiguresAnOpenAiSimulator() {
        CommandLine cl = CommandLine.parse(
                "--profile",
                "openai",
                "--rpm",
                "60",
                "--tpm",
                "20000",
                "--window",
                "10s",
                "--burst",
                "5",
                "--output-tokens",
                "32",
                "--ms-per-token",
                "5",
                "--first-byte-ms",
                "50");
        List<Limit> limits = cl.builder.resolvedLimits();
        assertThat(limits).extracting(Limit::dimension).containsExactly(Dimension.REQUESTS, Dimension.TOKENS);
        assertThat(limits).allSatisfy(l -> {
            assertThat(l.window()).isEqualTo(Duration.ofSeconds(10));
            assertThat(l.effectiveBurst()).isEqualTo(5);
            assertThat(l.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        });
    }

    @Test
    void limitSpecsCarryAlgorithmScopeBurstAndName() {
        Limit l = CommandLine.limit("requests=1800/1m,fixed,scope=org,name=org_chat");
        assertThat(l.capacity()).isEqualTo(1800);
        assertThat(l.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
        assertThat(l.scope()).isEqualTo(Scope.ORGANIZATION);
        assertThat(l.name()).isEqualTo("org_chat");
        assertThat(CommandLine.limit("concurrency=8").dimension()).isEqualTo(Dimension.CONCURRENCY);
        assertThat(CommandLine.limit("input_tokens=500/1s,burst=100").effectiveBurst())
                .isEqualTo(100);
        assertThatThrownBy(() -> CommandLine.limit("requests=10")).hasMessageContaining("CAPACITY/WINDOW");
    }

    @Test
    void fieldOptionsPutKeysInOrganizationsAndAddANeighbour() {
        CommandLine cl = CommandLine.parse(
                "--rpm",
                "60",
                "--org",
                "sk-1=org-a",
                "--org",
                "sk-2=org-a",
                "--unmapped-keys",
                "own",
                "--count-refused",
                "false",
                "--round-remaining",
                "false",
                "--neighbour",
                "org-a=40%");
        assertThat(cl.builder.resolvedLimits())
                .allSatisfy(l -> assertThat(l.scope()).isEqualTo(Scope.ORGANIZATION));
        assertThatThrownBy(() -> CommandLine.parse("--neighbour", "org-a=1.5")).hasMessageContaining("(0, 1)");
        assertThatThrownBy(() -> CommandLine.parse("--count-refused", "maybe")).hasMessageContaining("true or false");
    }

    @Test
    void faultsCanBeArmedForCountsSpansOrAlways() {
        Faults faults = new Faults(Clock.systemUTC());
        CommandLine.parse(
                        "--fault",
                        "overload=3",
                        "--fault",
                        "truncated_stream:30s",
                        "--fault=malformed_headers:always",
                        "--slow-first-byte-ms",
                        "250")
                .faults
                .forEach(f -> f.accept(faults));
        assertThat(faults.armed())
                .containsEntry("overload", "next 3")
                .containsEntry("malformed_headers", "always")
                .containsKey("truncated_stream");
        assertThat(faults.slowFirstByteDelay()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void helpListsEveryOption() throws Exception {
        String source = new String(
                CommandLineTest.class
                        .getResourceAsStream("/dev/sluice/simulator/cli/CommandLine.class")
                        .readAllBytes(),
                StandardCharsets.ISO_8859_1);
        Matcher m = Pattern.compile("--[a-z-]+").matcher(source);
        while (m.find()) {
            assertThat(CommandLine.USAGE).contains(m.group());
        }
        assertThat(CommandLine.parse("--help").help).isTrue();
        assertThatThrownBy(() -> CommandLine.parse("--nope", "1")).hasMessageContaining("unknown option");
    }

    @Test
    void startUpPrintsTheBaseUrlAndTheLimits() {
        CommandLine cl = CommandLine.parse("--profile", "gateway");
        try (Simulator sim = cl.builder.start()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Main.describe(sim, new PrintStream(out, true, StandardCharsets.UTF_8));
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .contains(
                            sim.baseUrl(),
                            "key_chat",
                            "600 requests per 1m per api_key (fixed window)",
                            "org_chat",
                            "key_concurrency",
                            "/__sim/ledger");
        }
    }
}
