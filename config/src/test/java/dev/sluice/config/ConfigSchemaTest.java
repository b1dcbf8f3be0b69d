package dev.sluice.config;

import static dev.sluice.config.Fixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every declared setting can be given in every way a user can give it, and means what it says by default. */
class ConfigSchemaTest {
    @TempDir
    Path dir;

    @Test
    void everySettingBindsFromYamlSystemPropertiesAndEnvironment() throws Exception {
        List<Setting<?, ?, ?>> settings = ConfigSchema.settings();
        assertThat(settings).hasSize(37);
        for (Setting<?, ?, ?> s : settings) {
            String text = s.path.equals("pricesFile") ? aPriceTable() : otherValueText(s);
            Object expected = parsed(s, text);
            assertThat(expected).as(s.path).isNotEqualTo(s.defaultValue);

            SluiceConfig fromYaml = ConfigLoader.load(ConfigSources.builder()
                    .file(write(dir, "sluice.yaml", yaml(s.path, text)))
                    .build());
            assertThat((Object) s.valueIn(fromYaml)).as("%s from YAML", s.path).isEqualTo(expected);

            SluiceConfig fromProperty = ConfigLoader.load(ConfigSources.builder()
                    .systemProperty("sluice." + s.path, text)
                    .build());
            assertThat((Object) s.valueIn(fromProperty))
                    .as("%s from -D", s.path)
                    .isEqualTo(expected);

            SluiceConfig fromEnv = ConfigLoader.load(
                    ConfigSources.builder().envVariable(envName(s.path), text).build());
            assertThat((Object) s.valueIn(fromEnv))
                    .as("%s from %s", s.path, envName(s.path))
                    .isEqualTo(expected);
        }
    }

    @Test
    void everyDeclaredDefaultIsWhatTheBuildersStartFrom() throws Exception {
        SluiceConfig defaults = SluiceConfig.defaults();
        SluiceConfig loaded = ConfigLoader.load(ConfigSources.none());
        SluiceConfig built = SluiceConfig.builder()
                .retry(RetryConfig.builder().build())
                .estimation(EstimationConfig.builder().build())
                .store(StoreConfig.builder().build())
                .metrics(MetricsConfig.builder().build())
                .build();
        for (Setting<?, ?, ?> s : ConfigSchema.settings()) {
            assertThat((Object) s.valueIn(defaults)).as(s.path).isEqualTo(s.defaultValue);
            assertThat((Object) s.valueIn(loaded)).as(s.path).isEqualTo(s.defaultValue);
            assertThat((Object) s.valueIn(built)).as(s.path).isEqualTo(s.defaultValue);
        }
        assertThat(SluiceConfig.DEFAULT_LEASE_TIMEOUT).isEqualTo(Duration.ofMinutes(10));
        assertThat(SluiceConfig.DEFAULT_COLD_START_WAIT).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void everySettingIsDocumentedAndEveryDefaultIsInRange() {
        for (Setting<?, ?, ?> s : ConfigSchema.settings()) {
            assertThat(s.doc()).as(s.path).isNotBlank();
        }
        assertThat(SluiceConfig.defaults().toBuilder().issues().isEmpty()).isTrue();
    }

    @Test
    void overridesCanSetExactlyTheDeclaredSettingsAndTheStoreShorthand() {
        List<String> expected = new ArrayList<>();
        for (Setting<?, ?, ?> s : ConfigSchema.settings()) {
            if (s.isShorthand()) {
                expected.add(s.section.path);
            }
            expected.add(s.path);
        }
        assertThat(Overrides.PATHS).containsExactlyElementsOf(expected);
        assertThat(ConfigSchema.overridePaths()).containsEntry("store", "store.url");
    }

    @Test
    void onlyModeAndFailModeAreLiveTunable() {
        // What core's ConfigReload applies live; every other setting needs a restart.
        assertThat(ConfigSchema.settings().stream().filter(Setting::isLive).map(s -> s.path))
                .containsExactly("mode", "failMode");
    }

    @Test
    void theTopLevelListsItsKeysInDocumentOrder() {
        assertThat(ConfigSchema.ROOT.keys())
                .containsExactly(
                        "mode",
                        "failMode",
                        "logLevel",
                        "adoptHeaderLimits",
                        "leaseTimeout",
                        "coldStartWait",
                        "stateFile",
                        "stateSaveInterval",
                        "jmx",
                        "metrics",
                        "store",
                        "providers",
                        "limits",
                        "identity",
                        "tenants",
                        "classScheduling",
                        "trafficClasses",
                        "fallbacks",
                        "retry",
                        "estimation",
                        "currency",
                        "prices",
                        "pricesFile");
    }

    /** The path of a price table file: {@code pricesFile} names one the config reads. */
    private String aPriceTable() throws Exception {
        return write(
                        dir,
                        "prices.yaml",
                        "asOf: \"2026-12-07\"\nsource: test\ncurrency: USD\nprices: [{model: m, input: 1, output: 2}]\n")
                .toString();
    }

    /** A valid value other than the default, as a user would write it. */
    private static String otherValueText(Setting<?, ?, ?> s) throws Exception {
        Object d = s.defaultValue;
        if (d instanceof Boolean) {
            return String.valueOf(!(Boolean) d);
        }
        if (d instanceof Integer) {
            return String.valueOf((Integer) d + 1);
        }
        if (d instanceof Double) {
            return BigDecimal.valueOf((Double) d).add(new BigDecimal("0.01")).toPlainString();
        }
        if (d instanceof Duration) {
            return Durations.format(((Duration) d).plusSeconds(1));
        }
        if (d instanceof Enum) {
            for (Object c : ((Enum<?>) d).getDeclaringClass().getEnumConstants()) {
                if (c != d) {
                    return (String) c.getClass().getMethod("configName").invoke(c);
                }
            }
        }
        if (s.path.equals("currency")) {
            return "EUR";
        }
        if (s.path.equals("metrics.path")) {
            return "/sluice/metrics";
        }
        if (s.path.equals("metrics.bind")) {
            return "127.0.0.1";
        }
        if (d instanceof String) {
            return "redis://localhost:6379";
        }
        throw new AssertionError("no example value for " + s.path + " of " + d.getClass());
    }

    private static Object parsed(Setting<?, ?, ?> s, String text) throws Exception {
        Object d = s.defaultValue;
        if (d instanceof Boolean) {
            return Boolean.valueOf(text);
        }
        if (d instanceof Integer) {
            return Integer.valueOf(text);
        }
        if (d instanceof Double) {
            return Double.valueOf(text);
        }
        if (d instanceof Duration) {
            return Durations.parse(text);
        }
        if (d instanceof Enum) {
            for (Object c : ((Enum<?>) d).getDeclaringClass().getEnumConstants()) {
                if (text.equals(c.getClass().getMethod("configName").invoke(c))) {
                    return c;
                }
            }
        }
        return text;
    }

    /** {@code retry.maxAttempts} with value 4 as a YAML document. */
    private static String yaml(String path, String value) {
        String[] parts = path.split("\\.");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            b.append("  ".repeat(i)).append(parts[i]).append(':');
            b.append(i == parts.length - 1 ? " " + value + "\n" : "\n");
        }
        return b.toString();
    }

    /** {@code retry.maxAttempts} -> {@code SLUICE_RETRY_MAX_ATTEMPTS}. */
    private static String envName(String path) {
        return "SLUICE_"
                + path.chars()
                        .mapToObj(c ->
                                c == '.' ? "_" : Character.isUpperCase(c) ? "_" + (char) c : String.valueOf((char) c))
                        .collect(Collectors.joining())
                        .toUpperCase(Locale.ROOT);
    }
}
