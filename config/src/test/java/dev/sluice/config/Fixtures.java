package dev.sluice.config;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** Writing config files into a test's temp directory and loading them. */
final class Fixtures {
    private Fixtures() {}

    /** Lines joined as a file; line numbers in messages are the 1-based index into these lines. */
    static String lines(String... lines) {
        return String.join("\n", lines) + "\n";
    }

    static Path write(Path dir, String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    static ConfigSources.Builder yamlSources(Path dir, String... lines) throws IOException {
        return ConfigSources.builder().file(write(dir, "sluice.yaml", lines(lines)));
    }

    static SluiceConfig loadYaml(Path dir, String... lines) throws IOException, ConfigException {
        return ConfigLoader.load(yamlSources(dir, lines).build());
    }

    static ConfigException failure(ConfigSources sources) {
        try {
            SluiceConfig c = ConfigLoader.load(sources);
            return fail("expected a ConfigException, loaded " + c);
        } catch (ConfigException e) {
            return e;
        }
    }

    /** The lines of the ConfigException's message. */
    static List<String> problems(ConfigSources sources) {
        return Arrays.asList(failure(sources).getMessage().split("\n"));
    }

    static List<String> yamlProblems(Path dir, String... lines) throws IOException {
        return problems(yamlSources(dir, lines).build());
    }
}
