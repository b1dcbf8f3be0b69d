package dev.sluice.config;

import static dev.sluice.config.Fixtures.lines;
import static dev.sluice.config.Fixtures.problems;
import static dev.sluice.config.Fixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agent arguments > -Dsluice.* > SLUICE_* > file > defaults, and how the file itself is chosen. */
class PrecedenceTest {
    @TempDir
    Path dir;

    private Path file() throws IOException {
        return write(dir, "sluice.yaml", lines("retry:", "  maxAttempts: 5", "mode: observe"));
    }

    @Test
    void fileBeatsDefaults() throws Exception {
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder().file(file()).build());
        assertThat(c.retry().maxAttempts()).isEqualTo(5);
        assertThat(c.retry().maxBackoff()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void environmentBeatsFile() throws Exception {
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder()
                .file(file())
                .envVariable("SLUICE_RETRY_MAX_ATTEMPTS", "4")
                .build());
        assertThat(c.retry().maxAttempts()).isEqualTo(4);
        assertThat(c.mode()).isEqualTo(Mode.OBSERVE);
    }

    @Test
    void systemPropertyBeatsEnvironment() throws Exception {
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder()
                .file(file())
                .envVariable("SLUICE_RETRY_MAX_ATTEMPTS", "4")
                .systemProperty("sluice.retry.maxAttempts", "3")
                .build());
        assertThat(c.retry().maxAttempts()).isEqualTo(3);
    }

    @Test
    void agentArgumentBeatsSystemProperty() throws Exception {
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder()
                .file(file())
                .envVariable("SLUICE_RETRY_MAX_ATTEMPTS", "4")
                .systemProperty("sluice.retry.maxAttempts", "3")
                .agentArgs("retry.maxAttempts=2")
                .build());
        assertThat(c.retry().maxAttempts()).isEqualTo(2);
    }

    @Test
    void theFileIsNamedByTheHighestSource() throws Exception {
        Path byArgs = write(dir, "args.yaml", "logLevel: error\n");
        Path byProperty = write(dir, "property.yml", "logLevel: warn\n");
        Path byEnv = write(dir, "env.yaml", "logLevel: debug\n");
        Path explicit = write(dir, "explicit.yaml", "logLevel: trace\n");
        ConfigSources.Builder b = ConfigSources.builder().file(explicit);
        assertThat(ConfigLoader.load(b.build()).logLevel()).isEqualTo(LogLevel.TRACE);
        b.envVariable("SLUICE_CONFIG", byEnv.toString());
        assertThat(ConfigLoader.load(b.build()).logLevel()).isEqualTo(LogLevel.DEBUG);
        b.systemProperty("sluice.config", byProperty.toString());
        assertThat(ConfigLoader.load(b.build()).logLevel()).isEqualTo(LogLevel.WARN);
        b.agentArgs("config=" + byArgs + ",mode=observe");
        SluiceConfig c = ConfigLoader.load(b.build());
        assertThat(c.logLevel()).isEqualTo(LogLevel.ERROR);
        assertThat(c.origin()).isEqualTo("file " + byArgs + " + agent argument mode");
    }

    @Test
    void originNamesTheFileAndEveryOverrideThatWon() throws Exception {
        Path f = file();
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder()
                .file(f)
                .envVariable("SLUICE_MODE", "off")
                .systemProperty("sluice.mode", "enforce")
                .systemProperty("sluice.retry.maxAttempts", "2")
                .agentArgs("logLevel=debug")
                .build());
        assertThat(c.origin())
                .isEqualTo("file " + f + " + -Dsluice.mode + -Dsluice.retry.maxAttempts + agent argument logLevel");
        assertThat(ConfigLoader.load(ConfigSources.none()).origin()).isEqualTo("defaults (no config file)");
        assertThat(ConfigLoader.load(ConfigSources.builder()
                                .systemProperty("sluice.mode", "observe")
                                .build())
                        .origin())
                .isEqualTo("defaults (no config file) + -Dsluice.mode");
    }

    @Test
    void noSourcesGiveTheDefaults() throws Exception {
        assertThat(ConfigLoader.load(ConfigSources.none())).isEqualTo(SluiceConfig.defaults());
    }

    @Test
    void environmentNamesMatchWithOrWithoutUnderscoresBetweenWords() throws Exception {
        Map<String, String> env = Map.of(
                "SLUICE_RETRY_MAXATTEMPTS", "7",
                "SLUICE_RETRY_BASE_BACKOFF", "250ms",
                "SLUICE_JMX_ENABLED", "false",
                "SLUICE_STORE_LEASE_CHUNK", "0.1",
                "SLUICE_ADOPTHEADERLIMITS", "TRUE",
                "SLUICE_FAIL_MODE", "closed");
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder().env(env).build());
        assertThat(c.retry().maxAttempts()).isEqualTo(7);
        assertThat(c.retry().baseBackoff()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.jmx().enabled()).isFalse();
        assertThat(c.store().leaseChunk()).isEqualTo(0.1);
        assertThat(c.adoptHeaderLimits()).isTrue();
        assertThat(c.failMode()).isEqualTo(FailMode.CLOSED);
    }

    @Test
    void twoSpellingsOfOneVariableMustAgree() throws Exception {
        assertThat(ConfigLoader.load(ConfigSources.builder()
                                .envVariable("SLUICE_RETRY_MAXATTEMPTS", "2")
                                .envVariable("SLUICE_RETRY_MAX_ATTEMPTS", "2")
                                .build())
                        .retry()
                        .maxAttempts())
                .isEqualTo(2);
        assertThat(problems(ConfigSources.builder()
                        .envVariable("SLUICE_RETRY_MAXATTEMPTS", "2")
                        .envVariable("SLUICE_RETRY_MAX_ATTEMPTS", "3")
                        .build()))
                .containsExactly("retry.maxAttempts: set twice with different values, \"2\" by SLUICE_RETRY_MAXATTEMPTS"
                        + " and \"3\" by SLUICE_RETRY_MAX_ATTEMPTS");
    }

    @Test
    void onlySluicePropertiesAndVariablesAreConsidered() throws Exception {
        Properties props = new Properties();
        props.setProperty("java.version", "11");
        props.setProperty("sluiceX", "1");
        props.setProperty("sluice.mode", "observe");
        ConfigSources sources = ConfigSources.builder()
                .systemProperties(props)
                .env(Map.of("PATH", "/bin", "SLUICEMODE", "off"))
                .build();
        assertThat(sources.systemProperties()).containsOnlyKeys("sluice.mode");
        assertThat(sources.env()).isEmpty();
        assertThat(ConfigLoader.load(sources).mode()).isEqualTo(Mode.OBSERVE);
    }

    @Test
    void storeShorthandOverridesOnlyTheUrl() throws Exception {
        Path f = write(dir, "sluice.yaml", lines("store:", "  url: local", "  instances: 3"));
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder()
                .file(f)
                .systemProperty("sluice.store", "redis://redis:6379")
                .build());
        assertThat(c.store().url()).isEqualTo("redis://redis:6379");
        assertThat(c.store().instances()).isEqualTo(3);
    }

    @Test
    void overridesExtendAFileStoreShorthand() throws Exception {
        Path f = write(dir, "sluice.yaml", lines("store: redis://redis:6379"));
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder()
                .file(f)
                .envVariable("SLUICE_STORE_TIMEOUT", "50ms")
                .build());
        assertThat(c.store().url()).isEqualTo("redis://redis:6379");
        assertThat(c.store().timeout()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void agentArgumentsToleratesSpacesAndEmptyPairs() throws Exception {
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder()
                .agentArgs(" mode = observe ,, estimation.learn=false,")
                .build());
        assertThat(c.mode()).isEqualTo(Mode.OBSERVE);
        assertThat(c.estimation().learn()).isFalse();
    }

    @Test
    void reloadingWithTheSameSourcesRereadsTheFile() throws Exception {
        Path f = file();
        ConfigSources sources = ConfigSources.builder()
                .file(f)
                .systemProperty("sluice.logLevel", "warn")
                .build();
        SluiceConfig first = ConfigLoader.load(sources);
        assertThat(ConfigLoader.load(sources)).isEqualTo(first);

        Files.writeString(f, lines("retry:", "  maxAttempts: 1", "mode: observe"));
        SluiceConfig second = ConfigLoader.load(sources);
        assertThat(second.retry().maxAttempts()).isEqualTo(1);
        assertThat(second.logLevel()).isEqualTo(LogLevel.WARN);
        assertThat(second).isNotEqualTo(first);
    }
}
