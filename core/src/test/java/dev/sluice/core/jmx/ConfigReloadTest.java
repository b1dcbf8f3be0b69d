package dev.sluice.core.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Governor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConfigReloadTest {

    private final JmxFixture jmx;
    private final Governor governor;

    ConfigReloadTest() throws Exception {
        jmx = new JmxFixture();
        governor = jmx.runtime.governor();
    }

    @AfterEach
    void close() throws Exception {
        jmx.close();
    }

    private static String edited(String... replacements) {
        String yaml = JmxFixture.CONFIG;
        for (int i = 0; i < replacements.length; i += 2) {
            assertThat(yaml).contains(replacements[i]);
            yaml = yaml.replace(replacements[i], replacements[i + 1]);
        }
        return yaml;
    }

    @Test
    void reloadAppliesWhatChangedLiveAndSaysWhat() {
        jmx.write("mode: observe\n"
                + edited(
                        "        capacity: 10\n", "        capacity: 20\n",
                        "    weight: 2\n", "    weight: 3\n    guaranteedShare: 0.25\n",
                        "    enforced: false\n", "    enforced: true\n")
                + "trafficClasses:\n  - name: interactive\n    maxWait: 500ms\n    maxQueueDepth: 50\n");

        String report = jmx.governor().reloadConfig();

        assertThat(report)
                .startsWith("reloaded file " + jmx.file)
                .contains("7 changes applied")
                .contains("mode enforce -> observe")
                .contains("limit sim-rpm capacity 10 -> 20")
                .contains("limit documented enforced false -> true")
                .contains("tenant alpha weight 2.0 -> 3.0")
                .contains("tenant alpha guaranteedShare 0.0 -> 0.25")
                .contains("class interactive maxWait 300ms -> 500ms")
                .contains("class interactive maxQueueDepth 1000 -> 50");
        assertThat(governor.controls().limit("sim-rpm").capacity()).isEqualTo(20);
        assertThat(governor.controls().limit("documented").enforced()).isTrue();
        assertThat(governor.controls().tenantWeight("alpha")).isEqualTo(3.0);
        assertThat(governor.controls().guarantees().share("alpha")).isEqualTo(0.25);
        assertThat(governor.controls().trafficClasses().get("interactive").maxQueueDepth())
                .isEqualTo(50);
        assertThat(jmx.governor().getMode()).isEqualTo("observe");

        assertThat(jmx.governor().reloadConfig()).endsWith("no changes, the live values already match");
    }

    @Test
    void reloadPutsBackWhatWasTunedThroughJmxButKeepsPauses() {
        jmx.limit("sim-rpm").setCapacity(3);
        jmx.governor().pauseTenant("beta");

        assertThat(jmx.governor().reloadConfig()).contains("1 change applied").contains("capacity 3 -> 10");
        assertThat(governor.controls().limit("sim-rpm").capacity()).isEqualTo(10);
        assertThat(governor.controls().pausedTenants()).containsExactly("beta");
    }

    @Test
    void aChangeTheLiveGovernorCannotApplyIsRefusedAndNothingChanges() {
        jmx.write(edited(
                "        capacity: 10\n",
                "        capacity: 20\n",
                "    window: 1m\n    level: tenant\n",
                "    window: 10s\n    level: tenant\n",
                "  - name: beta\n",
                "  - name: beta\n  - name: gamma\n",
                "\nlimits:\n",
                "\nlimits:\n  - id: extra\n    dimension: requests\n    capacity: 1\n    window: 1m\n"));

        assertThatThrownBy(() -> jmx.governor().reloadConfig())
                .hasStackTraceContaining("reload refused, nothing changed: these changes need a restart")
                .hasStackTraceContaining("limit extra added")
                .hasStackTraceContaining("limit tenant-tpm window changed: PT1M -> PT10S")
                .hasStackTraceContaining("tenant gamma added");
        assertThat(governor.controls().limit("sim-rpm").capacity()).isEqualTo(10);
        assertThat(jmx.governor().getConfigOrigin()).isEqualTo("file " + jmx.file);
    }

    @Test
    void changedFallbackRoutesNeedARestart() {
        dev.sluice.config.SluiceConfig running = dev.sluice.config.SluiceConfig.builder()
                .providers(java.util.List.of(
                        dev.sluice.config.ProviderConfig.builder("east", dev.sluice.config.ProviderKind.OPENAI)
                                .match(dev.sluice.config.MatchConfig.hosts("east.example.com"))
                                .build(),
                        dev.sluice.config.ProviderConfig.builder("west", dev.sluice.config.ProviderKind.OPENAI)
                                .match(dev.sluice.config.MatchConfig.hosts("west.example.com"))
                                .build()))
                .build();
        dev.sluice.config.SluiceConfig next = running.toBuilder()
                .fallbacks(java.util.List.of(dev.sluice.config.FallbackConfig.builder("east")
                        .classes("interactive")
                        .route(dev.sluice.config.FallbackConfig.Route.builder("west")
                                .build())
                        .build()))
                .build();
        assertThat(ConfigReload.needsRestart(running, next)).containsExactly("fallbacks changed");
    }

    @Test
    void anInvalidFileIsRefusedWithTheConfigProblems() {
        jmx.write(edited("        capacity: 10\n", "        capacity: -5\n", "    weight: 2\n", "    weight: 4\n"));

        assertThatThrownBy(() -> jmx.governor().reloadConfig())
                .hasStackTraceContaining("reload refused, nothing changed: the config is invalid")
                .hasStackTraceContaining("capacity");
        assertThat(governor.controls().limit("sim-rpm").capacity()).isEqualTo(10);
        assertThat(governor.controls().tenantWeight("alpha")).isEqualTo(2.0);
    }

    @Test
    void sharesThatTradePlacesNeverSumOverOneOnTheWay() {
        governor.controls().guarantees().setShare("alpha", 0.6);
        governor.controls().guarantees().setShare("beta", 0.3);
        jmx.write(edited(
                "    weight: 2\n",
                "    weight: 2\n    guaranteedShare: 0.3\n",
                "  - name: beta\n",
                "  - name: beta\n    guaranteedShare: 0.6\n"));

        assertThat(jmx.governor().reloadConfig()).contains("2 changes applied");
        assertThat(governor.controls().guarantees().share("alpha")).isEqualTo(0.3);
        assertThat(governor.controls().guarantees().share("beta")).isEqualTo(0.6);
    }

    @Test
    void pricesAndARefreshedPricesFileApplyLiveWithoutARestart() throws Exception {
        java.nio.file.Path prices = java.nio.file.Files.createTempFile("litellm-", ".json");
        String model = "\"%s\": {\"litellm_provider\": \"openai\", \"mode\": \"chat\","
                + " \"input_cost_per_token\": 1e-06, \"output_cost_per_token\": 2e-06}";
        java.nio.file.Files.writeString(prices, "{" + String.format(model, "gpt-9") + "}");
        jmx.runtime.governance().preparePrices();
        assertThat(jmx.governor().getPriceTables()).isEqualTo("built-in table of 2026-12-07");

        jmx.write(JmxFixture.CONFIG + "pricesFile: " + prices
                + "\nprices:\n  - {model: my-model, input: 1, output: 2}\n");
        assertThat(jmx.governor().reloadConfig())
                .contains("1 change applied")
                .contains("prices: built-in table of 2026-12-07; " + prices + " (litellm, ")
                .contains("1 models); 1 config entry");
        assertThat(jmx.governor().getPriceTables()).contains("1 models); 1 config entry");
        assertThat(jmx.governor().reloadConfig()).endsWith("no changes, the live values already match");

        // the file refreshed: read again by the next reload
        java.nio.file.Files.writeString(
                prices, "{" + String.format(model, "gpt-9") + ", " + String.format(model, "gpt-10") + "}");
        assertThat(jmx.governor().reloadConfig()).contains("1 change applied").contains("2 models)");
        assertThat(jmx.governor().getPriceTables()).contains("2 models)");
        java.nio.file.Files.delete(prices);
    }
}
