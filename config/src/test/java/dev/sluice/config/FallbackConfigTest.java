package dev.sluice.config;

import static dev.sluice.config.Fixtures.loadYaml;
import static dev.sluice.config.Fixtures.yamlProblems;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fallbacks[]}: what binds, and the mistakes a user can make, each named by its field. */
class FallbackConfigTest {
    @TempDir
    Path dir;

    private static final String[] TWO_REGIONS = {
        "providers:",
        "  - name: azure-east",
        "    kind: azure-openai",
        "    match: {hosts: [acme-eastus.openai.azure.com]}",
        "  - name: azure-west",
        "    kind: azure-openai",
        "    match: {hosts: [acme-westus.openai.azure.com]}",
        "  - name: openai",
        "    kind: openai",
        "  - name: anthropic",
        "    kind: anthropic",
    };

    private static String[] with(String... more) {
        String[] all = new String[TWO_REGIONS.length + more.length];
        System.arraycopy(TWO_REGIONS, 0, all, 0, TWO_REGIONS.length);
        System.arraycopy(more, 0, all, TWO_REGIONS.length, more.length);
        return all;
    }

    @Test
    void bindsTheRoutesOfAClass() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                with(
                        "fallbacks:",
                        "  - from: azure-east",
                        "    classes: [interactive]",
                        "    afterPause: 2s",
                        "    routes:",
                        "      - to: azure-west",
                        "        deployment: gpt-4o-mini-west",
                        "        apiKeyEnv: AZURE_WEST_API_KEY"));
        FallbackConfig f = c.fallbacks().get(0);
        assertThat(f.from()).isEqualTo("azure-east");
        assertThat(f.classes()).containsExactly("interactive");
        assertThat(f.afterPause()).isEqualTo(Duration.ofSeconds(2));
        assertThat(f.otherModels()).isFalse();
        FallbackConfig.Route r = f.routes().get(0);
        assertThat(r.name()).isEqualTo("azure-west/gpt-4o-mini-west");
        assertThat(r.apiKeyEnv()).isEqualTo("AZURE_WEST_API_KEY");
        assertThat(r.baseUrl(c.providers().get(1))).isEqualTo("https://acme-westus.openai.azure.com");
    }

    @Test
    void aRouteNeverCrossesWireProtocols() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        with(
                                "fallbacks:",
                                "  - from: openai",
                                "    classes: [interactive]",
                                "    routes:",
                                "      - to: anthropic")))
                .containsExactly("fallbacks[0].routes[0].to: \"anthropic\" speaks anthropic but openai speaks openai;"
                        + " a call never moves across wire protocols (sluice.yaml line 16)");
    }

    @Test
    void namesEachMistakeByItsField() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        with(
                                "fallbacks:",
                                "  - from: azure-eastt",
                                "    classes: [interactiv]",
                                "    afterPause: -1s",
                                "    routes:",
                                "      - to: openai",
                                "        deployment: gpt-4o",
                                "        apiKeyEnv: sk-live-123",
                                "        url: ftp://x")))
                .contains(
                        "fallbacks[0].from: \"azure-eastt\" names no declared provider, did you mean azure-east?"
                                + " (sluice.yaml line 13)",
                        "fallbacks[0].classes[0]: \"interactiv\" names no traffic class, did you mean interactive?"
                                + " (sluice.yaml line 14)",
                        "fallbacks[0].routes[0].deployment: only azure-openai providers have deployments; openai is"
                                + " openai (sluice.yaml line 18)",
                        "fallbacks[0].routes[0].apiKeyEnv: \"sk-live-123\" is not an environment variable's name"
                                + " (letters, digits and _); name the variable holding the key, never the key itself"
                                + " (sluice.yaml line 19)",
                        "fallbacks[0].routes[0].url: \"ftp://x\" is not an absolute http(s) URL (sluice.yaml line 20)");
    }

    @Test
    void aRouteNeedsAnAddress() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: east",
                        "    kind: azure-openai",
                        "    match: {hosts: [east.openai.azure.com]}",
                        "  - name: west",
                        "    kind: azure-openai",
                        "    match: {hosts: [west.openai.azure.com, \"*.west.example.com\"]}",
                        "fallbacks:",
                        "  - from: east",
                        "    classes: [interactive]",
                        "    routes: [{to: west}]"))
                .singleElement()
                .asString()
                .isEqualTo("fallbacks[0].routes[0].url: required here: west is recognised by hosts"
                        + " [west.openai.azure.com, *.west.example.com], which name no single address; give the route"
                        + " the URL its calls go to (sluice.yaml line 11)");
    }

    @Test
    void oneListOfRoutesPerClassAndProvider() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        with(
                                "fallbacks:",
                                "  - from: azure-east",
                                "    classes: [interactive]",
                                "    routes: [{to: azure-west}]",
                                "  - from: azure-east",
                                "    classes: [batch, interactive]",
                                "    routes: [{to: azure-west, name: w2}]")))
                .containsExactly("fallbacks[1].classes[1]: calls of class interactive to azure-east"
                        + " already have their routes at fallbacks[0].classes[0]; list all of them there (sluice.yaml"
                        + " line 17)");
    }

    @Test
    void theBuilderChecksToo() {
        assertThatThrownBy(() ->
                        FallbackConfig.builder("east").classes("interactive").build())
                .hasMessageContaining("routes: required: at least one route");
        assertThatThrownBy(() ->
                        FallbackConfig.Route.builder("west").apiKeyEnv("a b").build())
                .hasMessageContaining("apiKeyEnv");
    }
}
