package dev.sluice.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A Sluice configuration file written by a test, for {@code -javaagent:...=config=<path>}. */
public final class SluiceYaml {

    private SluiceYaml() {}

    /** Writes {@code yaml} to a temporary file (deleted when the test JVM exits) and returns its path. */
    public static Path write(String yaml) {
        try {
            Path file = Files.createTempFile("sluice-it-", ".yaml");
            file.toFile().deleteOnExit();
            Files.writeString(file, yaml, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The agent options naming this configuration file. */
    public static String agentOptions(String yaml) {
        return "config=" + write(yaml);
    }

    /**
     * One provider whose requests go to a simulator, mirroring its request limit, with nothing
     * learned from headers: the simulator's short windows (per second) are not the per-minute
     * windows the real providers' headers describe.
     */
    public static String mirroredProvider(String kind, String baseUrl, long requests, String window) {
        return unlearnedProvider(
                "sim-" + kind,
                kind,
                baseUrl,
                "limits:",
                "  - dimension: requests",
                "    capacity: " + requests,
                "    window: " + window);
    }

    /**
     * One provider whose requests go to a simulator, with nothing learned from headers, and these
     * lines of its own (its limits, its ramp...) written under it as they are.
     */
    public static String unlearnedProvider(String name, String kind, String baseUrl, String... lines) {
        StringBuilder yaml = new StringBuilder()
                .append("providers:\n")
                .append("  - name: ")
                .append(name)
                .append('\n')
                .append("    kind: ")
                .append(kind)
                .append('\n')
                .append("    match:\n")
                .append("      urls: [\"")
                .append(baseUrl)
                .append("/\"]\n")
                .append("    learnFromHeaders: false\n");
        for (String line : lines) {
            yaml.append("    ").append(line).append('\n');
        }
        return yaml.toString();
    }
}
