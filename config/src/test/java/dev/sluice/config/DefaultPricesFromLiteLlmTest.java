package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The build's refresh of the shipped price table from a copy of LiteLLM's table. */
class DefaultPricesFromLiteLlmTest {
    @TempDir
    Path dir;

    private static final String LITELLM = "{"
            + "\"gpt-5.4\": {\"litellm_provider\": \"openai\", \"mode\": \"chat\", \"input_cost_per_token\": 2.75e-06,"
            + " \"cache_read_input_token_cost\": 2.75e-07, \"output_cost_per_token\": 1.65e-05,"
            + " \"input_cost_per_token_above_272k_tokens\": 5.5e-06, \"output_cost_per_token_above_272k_tokens\":"
            + " 2.475e-05, \"input_cost_per_token_priority\": 5.5e-06, \"output_cost_per_token_priority\": 3.3e-05},"
            + "\"claude-sonnet-4-6\": {\"litellm_provider\": \"anthropic\", \"mode\": \"chat\", \"input_cost_per_token\":"
            + " 3e-06, \"output_cost_per_token\": 1.5e-05, \"cache_read_input_token_cost\": 3e-07,"
            + " \"cache_creation_input_token_cost\": 3.75e-06},"
            + "\"gemini-3.5-flash\": {\"litellm_provider\": \"vertex_ai-language-models\", \"mode\": \"chat\","
            + " \"input_cost_per_token\": 9e-06, \"output_cost_per_token\": 9e-06},"
            + "\"gpt-5.4-mini\": {\"litellm_provider\": \"openai\", \"mode\": \"chat\", \"input_cost_per_token\":"
            + " 8e-07, \"input_cost_per_token_flex\": 3e-07, \"output_cost_per_token\": 4.5e-06}"
            + "}";

    private static Map<String, PriceConfig> byModel(PriceTable t) {
        Map<String, PriceConfig> m = new HashMap<>();
        for (PriceConfig p : t.entries()) {
            m.put(p.model(), p);
        }
        return m;
    }

    @Test
    void theShippedFamiliesTakeLitellmsFiguresAndTheRestOfTheTableStaysAsWritten() throws Exception {
        String yaml = Files.readString(Path.of("src/main/prices/default-prices.yaml"));
        Path litellm = Fixtures.write(dir, "model_prices_and_context_window.json", LITELLM);

        DefaultPricesFromLiteLlm.Refreshed r =
                DefaultPricesFromLiteLlm.refresh(yaml, PriceTable.read(litellm), "2027-01-15");

        PriceTable before = DefaultPrices.parse(yaml, "before.yaml", DocumentParser.Format.YAML);
        PriceTable after = DefaultPrices.parse(r.yaml, "after.yaml", DocumentParser.Format.YAML);
        assertThat(after.problems()).isEmpty();
        assertThat(after.asOf()).isEqualTo("2027-01-15");
        assertThat(after.source())
                .startsWith(before.source())
                .endsWith("refreshed from LiteLLM's" + " model_prices_and_context_window.json");
        assertThat(after.entries())
                .extracting(PriceConfig::model)
                .containsExactlyElementsOf(
                        before.entries().stream().map(PriceConfig::model).collect(Collectors.toList()));

        PriceConfig gpt = byModel(after).get("gpt-5.4");
        assertThat(gpt.input()).isEqualTo(2.75);
        assertThat(gpt.cachedInput()).isEqualTo(0.275);
        assertThat(gpt.output()).isEqualTo(16.5);
        assertThat(gpt.longContext().input()).isEqualTo(5.5);
        assertThat(gpt.longContext().cachedInput())
                .as("LiteLLM's tier gives no cached price here: the table's stays")
                .isEqualTo(0.5);
        assertThat(gpt.serviceTiers())
                .as("2 x, as the table's own factor: not repeated")
                .isEmpty();
        PriceConfig mini = byModel(after).get("gpt-5.4-mini");
        assertThat(mini.serviceTiers())
                .as("LiteLLM's flex factor differs from the table's")
                .containsExactly(Map.entry("flex", 0.375));
        // a figure LiteLLM does not give stays: Anthropic's 1-hour write (2 x input), the rule's long-context tier
        PriceConfig sonnet = byModel(after).get("claude-sonnet-4-6");
        assertThat(sonnet).isEqualTo(byModel(before).get("claude-sonnet-4-6"));
        assertThat(sonnet.cacheWrite1h()).isEqualTo(6.0);
        assertThat(mini.longContext())
                .isEqualTo(byModel(before).get("gpt-5.4-mini").longContext());
        // Vertex AI's price is not the Gemini API's: the entry is left as it was
        assertThat(byModel(after).get("gemini-3.5-flash"))
                .isEqualTo(byModel(before).get("gemini-3.5-flash"));

        assertThat(r.changed).hasSize(2);
        assertThat(r.changed.get(0)).startsWith("gpt-5.4: {model: gpt-5.4, input: 2.50, cachedInput: 0.25,");
        assertThat(r.notInLiteLlm)
                .contains("gpt-4o", "gemini-3.5-flash")
                .doesNotContain("gpt-5.4", "claude-sonnet-4-6");
        assertThat(r.report()).contains("2 entries changed", "not priced by LiteLLM, kept as they were: ");
        // comments and unchanged lines are kept as they were
        assertThat(r.yaml.lines().filter(l -> l.startsWith("#")).collect(Collectors.toList()))
                .isEqualTo(yaml.lines().filter(l -> l.startsWith("#")).collect(Collectors.toList()));
        assertThat(r.yaml).contains("  - {model: gpt-4o, input: 2.50, cachedInput: 1.25, output: 10.00}");
        assertThat(r.yaml)
                .contains("  - {model: gpt-5.4, input: 2.75, cachedInput: 0.275, output: 16.50, longContext: {above:"
                        + " 272000, input: 5.50, cachedInput: 0.50, output: 24.75}}");
    }

    @Test
    void theToolRewritesTheTableInPlaceAndRefusesBadArguments() throws Exception {
        Path table = Fixtures.write(
                dir, "default-prices.yaml", Files.readString(Path.of("src/main/prices/default-prices.yaml")));
        Path litellm = Fixtures.write(dir, "litellm.json", LITELLM);
        DefaultPricesFromLiteLlm.main(new String[] {litellm.toString(), table.toString(), "2027-01-15"});
        assertThat(Files.readString(table)).contains("asOf: \"2027-01-15\"", "model: gpt-5.4, input: 2.75");
        assertThatThrownBy(() ->
                        DefaultPricesFromLiteLlm.main(new String[] {litellm.toString(), table.toString(), "soon"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("usage: DefaultPricesFromLiteLlm");
    }
}
