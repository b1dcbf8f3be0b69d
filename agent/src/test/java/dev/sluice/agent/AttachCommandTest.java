package dev.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code attach} says before it touches another JVM; attaching itself is proven by the forked-JVM tests. */
class AttachCommandTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SluiceCli.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void withoutAPidItPrintsItsUsage() {
        assertThat(run("attach")).isEqualTo(AttachCommand.USAGE);
        assertThat(err())
                .contains("usage: java -jar sluice-agent.jar attach <pid> [config-file | agent-options]")
                .contains("3 already running");
    }

    @Test
    void aPidMustBeAPositiveNumber() {
        assertThat(run("attach", "my-service")).isEqualTo(AttachCommand.USAGE);
        assertThat(err()).contains("'my-service' is not a process id");
    }

    @Test
    void itWillNotAttachToItsOwnJvm() {
        assertThat(run("attach", Long.toString(ProcessHandle.current().pid()))).isEqualTo(AttachCommand.USAGE);
        assertThat(err()).contains("is this command's own JVM");
    }

    @Test
    void aProcessThatDoesNotExistIsNamed() {
        assertThat(run("attach", "2147483646")).isEqualTo(AttachCommand.FAILED);
        assertThat(err()).contains("no process with pid 2147483646");
    }

    @Test
    void aMissingConfigFileIsReportedBeforeAttaching() {
        assertThat(run("attach", "2147483646", dir.resolve("nope.yaml").toString()))
                .isEqualTo(AttachCommand.USAGE);
        assertThat(err()).contains("config file " + dir.resolve("nope.yaml") + " does not exist");
    }

    @Test
    void aConfigFileIsPassedAsAnAbsolutePathSinceTheTargetHasAnotherWorkingDirectory() throws Exception {
        Files.writeString(dir.resolve("sluice.yaml"), "mode: observe\n");
        assertThat(AttachCommand.agentOptions("sluice.yaml", dir)).isEqualTo("config=" + dir.resolve("sluice.yaml"));
        assertThat(AttachCommand.agentOptions("config=sluice.yaml, log=debug", dir))
                .isEqualTo("config=" + dir.resolve("sluice.yaml") + ",log=debug");
        assertThat(AttachCommand.agentOptions("mode=observe", dir)).isEqualTo("mode=observe");
    }

    @Test
    void aConfigPathWithACommaCannotTravelInAgentOptions() throws Exception {
        Path odd = Files.createDirectories(dir.resolve("a,b"));
        Files.writeString(odd.resolve("sluice.yaml"), "mode: observe\n");
        assertThatThrownBy(() ->
                        AttachCommand.agentOptions(odd.resolve("sluice.yaml").toString(), dir))
                .hasMessageContaining("has a comma in its path");
    }
}
