package dev.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SluiceCliTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SluiceCli.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void versionPrintsTheBuildVersion() {
        assertThat(run("version")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).trim())
                .isEqualTo("sluice " + AgentVersion.get())
                .doesNotContain("unknown");
    }

    @Test
    void anUnknownCommandFailsWithUsage() {
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("unknown command 'frobnicate'")
                .contains("usage:");
    }

    @Test
    void statusAndLimitsTakeAPidOrNothing() {
        assertThat(run("status", "not-a-pid")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage: java -jar sluice-agent.jar status [pid]");
        assertThat(run("limits", "1", "2")).isEqualTo(2);
    }

    @Test
    void aJvmThatIsNotThereIsReportedInASentence() {
        assertThat(run("status", "2147483646")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("sluice: cannot attach to JVM 2147483646");
    }

    @Test
    void helpListsTheCommands() {
        assertThat(run("help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("status [pid]")
                .contains("limits [pid]");
    }
}
