package dev.sluice.config;

import static dev.sluice.config.Fixtures.problems;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Sources are a snapshot: later changes to the JVM's properties do not leak into a reload. */
class ConfigSourcesTest {

    @Test
    void sourcesAreAnImmutableSnapshot() {
        Properties props = new Properties();
        props.setProperty("sluice.mode", "observe");
        Map<String, String> env = new HashMap<>(Map.of("SLUICE_LOG_LEVEL", "debug"));
        ConfigSources sources =
                ConfigSources.builder().systemProperties(props).env(env).build();
        props.setProperty("sluice.mode", "off");
        env.put("SLUICE_MODE", "off");
        assertThat(sources.systemProperties()).containsExactly(Map.entry("sluice.mode", "observe"));
        assertThat(sources.env()).containsOnlyKeys("SLUICE_LOG_LEVEL");
        assertThatThrownBy(() -> sources.env().put("SLUICE_X", "1")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void toStringNeverShowsValuesWhichMayHoldPasswords() {
        ConfigSources sources = ConfigSources.builder()
                .agentArgs("store=redis://u:secret@r:6379")
                .envVariable("SLUICE_STORE_URL", "redis://u:secret@r:6379")
                .build();
        assertThat(sources.toString()).doesNotContain("secret").contains("SLUICE_STORE_URL");
    }

    @Test
    void fromRuntimeKeepsOnlySluiceEntries() {
        ConfigSources sources = ConfigSources.fromRuntime(null);
        assertThat(sources.systemProperties().keySet()).allMatch(k -> k.startsWith("sluice."));
        assertThat(sources.env().keySet()).allMatch(k -> k.startsWith("SLUICE_"));
        assertThat(sources.agentArgs()).isNull();
    }

    @Test
    void theStoreShorthandAndStoreUrlAreOneSetting() {
        assertThat(problems(ConfigSources.builder()
                        .systemProperty("sluice.store", "redis://a:6379")
                        .systemProperty("sluice.store.url", "redis://b:6379")
                        .build()))
                .containsExactly("store.url: set twice with different values, \"redis://a:6379\" by -Dsluice.store"
                        + " and \"redis://b:6379\" by -Dsluice.store.url");
    }

    @Test
    void rulesBetweenSectionsAlsoHoldForOverriddenValues() throws Exception {
        assertThat(ConfigLoader.load(ConfigSources.builder()
                                .agentArgs("classScheduling=weighted")
                                .build())
                        .classScheduling())
                .isEqualTo(ClassScheduling.WEIGHTED);
        assertThat(problems(ConfigSources.builder()
                        .systemProperty("sluice.retry.baseBackoff", "1m")
                        .build()))
                .containsExactly(
                        "retry.maxBackoff: 30s is not allowed, must be >= baseBackoff (1m) (-Dsluice.retry.baseBackoff)");
    }
}
