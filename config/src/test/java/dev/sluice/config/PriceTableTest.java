package dev.sluice.config;

import static dev.sluice.config.Fixtures.loadYaml;
import static dev.sluice.config.Fixtures.yamlProblems;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Price tables read from a file ({@code pricesFile}): LiteLLM's {@code
 * model_prices_and_context_window.json}, or the built-in table's own format; and the price rules a
 * flat price cannot hold (long-context tiers, one-hour cache writes, service tiers) in a config.
 */
class PriceTableTest {
    @TempDir
    Path dir;

    private Path litellmSample() throws IOException {
        Path file = dir.resolve("model_prices_and_context_window.json");
        try (InputStream in = PriceTableTest.class.getResourceAsStream("/prices/litellm-sample.json")) {
            Files.write(file, in.readAllBytes());
        }
        return file;
    }

    private static Map<String, PriceConfig> byRestrictedName(PriceTable t) {
        Map<String, PriceConfig> m = new HashMap<>();
        for (PriceConfig p : t.entries()) {
            m.put((p.provider() == null ? "" : p.provider() + ":") + p.model(), p);
        }
        return m;
    }

    @Test
    void litellmsTableIsReadPerMillionTokensWithItsTiersAndCacheWrites() throws Exception {
        PriceTable t = PriceTable.read(litellmSample());
        assertThat(t.format()).isEqualTo("litellm");
        assertThat(t.currency()).isEqualTo("USD");
        assertThat(t.source()).endsWith("model_prices_and_context_window.json");
        assertThat(t.asOf()).matches("\\d{4}-\\d\\d-\\d\\d"); // the file's date: LiteLLM's table states none
        Map<String, PriceConfig> m = byRestrictedName(t);

        PriceConfig gpt = m.get("gpt-5.4");
        assertThat(gpt.provider())
                .as("OpenAI's prices price the model for any provider")
                .isNull();
        assertThat(gpt.input()).isEqualTo(2.5);
        assertThat(gpt.cachedInput()).isEqualTo(0.25);
        assertThat(gpt.output()).isEqualTo(15.0);
        assertThat(gpt.longContext().above()).isEqualTo(272_000);
        assertThat(gpt.longContext().input()).isEqualTo(5.0);
        assertThat(gpt.longContext().cachedInput()).isEqualTo(0.5);
        assertThat(gpt.longContext().output()).isEqualTo(22.5);
        assertThat(gpt.serviceTiers())
                .containsEntry("flex", 0.5)
                .containsEntry("batch", 0.5)
                .containsEntry("priority", 2.0);

        PriceConfig claude = m.get("claude-sonnet-4-5");
        assertThat(claude.cacheWrite()).isEqualTo(3.75);
        assertThat(claude.cacheWrite1h()).isEqualTo(6.0);
        assertThat(claude.longContext().above()).isEqualTo(200_000);
        assertThat(claude.longContext().cacheWrite()).isEqualTo(7.5);
        assertThat(claude.serviceTiers()).isEmpty();

        assertThat(m.get("azure-openai:gpt-5.4").input())
                .as("Azure's prices are for Azure OpenAI providers only, named without azure/")
                .isEqualTo(2.75);
        assertThat(m.get("bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0").input())
                .isEqualTo(3.0);
        assertThat(m.get("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0").input())
                .isEqualTo(3.3);
        assertThat(m.get("gemini-3.1-pro-preview").longContext().output())
                .as("the Gemini API's, named without gemini/")
                .isEqualTo(18.0);
        assertThat(m.get("vertex-ai:gemini-3.1-pro-preview").input()).isEqualTo(2.0);
        assertThat(m.get("text-embedding-3-small").output())
                .as("an embedding model has no output price")
                .isZero();
        assertThat(m.get("model-with-nulls").cachedInput()).as("null is absent").isEqualTo(1.0);
        assertThat(m.get("gpt-4o-audio-preview").input()).isEqualTo(2.5);
    }

    @Test
    void litellmEntriesSluiceHasNoUseForAreSkippedNotReported() throws Exception {
        PriceTable t = PriceTable.read(litellmSample());
        assertThat(t.entries())
                .extracting(p -> p.provider() == null ? p.model() : p.provider() + ":" + p.model())
                .containsExactlyInAnyOrder(
                        "gpt-5.4",
                        "azure-openai:gpt-5.4",
                        "claude-sonnet-4-5",
                        "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0",
                        "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                        "gemini-3.1-pro-preview",
                        "vertex-ai:gemini-3.1-pro-preview",
                        "text-embedding-3-small",
                        "gpt-4o-audio-preview",
                        "model-with-nulls");
        // openai/gpt-5.4 names the same model as gpt-5.4 (the bare key wins); a regional or routed
        // variant (azure/eu/, bedrock/us-east-1/), images, speech, transcription, a chat model with
        // no token price, another provider: 8 skipped
        assertThat(t.skipped()).isEqualTo(8);
        assertThat(byRestrictedName(t).get("gpt-5.4").output()).isEqualTo(15.0);
    }

    @Test
    void aBadLitellmEntryIsLeftOutNamingTheEntryAndFieldAndTheOthersStillPrice() throws Exception {
        PriceTable t = PriceTable.read(litellmSample());
        assertThat(t.problems())
                .extracting(ConfigProblem::toString)
                .containsExactly(
                        "\"bad-text-price\".input_cost_per_token: \"0.000002\" is not a number (a price in USD per"
                                + " token); the entry is left out (model_prices_and_context_window.json line 164)",
                        "\"bad-negative-price\".output_cost_per_token: -0.000005 is not allowed, must be a price >= 0 in"
                                + " USD per token; the entry is left out (model_prices_and_context_window.json line"
                                + " 170)",
                        "\"bad-no-output-price\".output_cost_per_token: required but missing for a chat model; the"
                                + " entry is left out (model_prices_and_context_window.json line 176)",
                        "\"bad-tier-price\".input_cost_per_token_priority: true is not a number (a price in USD per"
                                + " token); the entry is left out (model_prices_and_context_window.json line 181)",
                        "\"bad-not-an-object\": is not an object of prices; the entry is left out"
                                + " (model_prices_and_context_window.json line 188)");
        assertThat(t.entries()).extracting(PriceConfig::model).doesNotContain("bad-text-price", "bad-tier-price");
        assertThat(t.entries()).hasSize(10);
    }

    @Test
    void aFileThatIsNotAPriceTableIsAnErrorNamingIt() throws Exception {
        Path notJson = Fixtures.write(dir, "prices.json", "{\"gpt-4o\": {\"input_cost_per_token\": 1e-06,");
        assertThatThrownBy(() -> PriceTable.read(notJson))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(notJson + " is not a usable price table: it is not JSON: ");
        Path list = Fixtures.write(dir, "list.json", "[1, 2]");
        assertThatThrownBy(() -> PriceTable.read(list))
                .hasMessage(list + " is not a usable price table: its root is not an object of models (list.json"
                        + " line 1)");
        assertThatThrownBy(() -> PriceTable.read(dir.resolve("missing.json")))
                .hasMessage("cannot read " + dir.resolve("missing.json") + ": no such file");
    }

    @Test
    void aTableInSluicesOwnFormatLeavesOutOnlyItsBadEntries() throws Exception {
        Path file = Fixtures.write(
                dir,
                "negotiated.yaml",
                Fixtures.lines(
                        "asOf: \"2026-11-30\"",
                        "source: our contract with OpenAI",
                        "currency: USD",
                        "serviceTiers: {priority: 1.5}",
                        "prices:",
                        "  - {model: gpt-5.4, input: 2.00, output: 12.00}",
                        "  - {model: gpt-5.5, input: -1, output: 24.00}",
                        "  - {model: gpt-5.2, input: 1.40, output: 11.20, serviceTiers: {flex: 0.4}}"));
        PriceTable t = PriceTable.read(file);
        assertThat(t.format()).isEqualTo("sluice");
        assertThat(t.asOf()).isEqualTo("2026-11-30");
        assertThat(t.serviceTiers()).containsExactly(Map.entry("priority", 1.5));
        assertThat(t.entries()).extracting(PriceConfig::model).containsExactly("gpt-5.4", "gpt-5.2");
        assertThat(t.problems())
                .extracting(ConfigProblem::toString)
                .containsExactly("prices[1].input: -1 is not allowed, must be >= 0 (negotiated.yaml line 7)");

        // the same table as JSON is told from LiteLLM's by its prices list
        Path json = Fixtures.write(
                dir,
                "negotiated.json",
                "{\"asOf\": \"2026-11-30\", \"source\": \"contract\", \"currency\": \"EUR\","
                        + " \"prices\": [{\"model\": \"gpt-5.4\", \"input\": 2, \"output\": 12}]}");
        PriceTable j = PriceTable.read(json);
        assertThat(j.format()).isEqualTo("sluice");
        assertThat(j.currency()).isEqualTo("EUR");
        assertThat(j.entries()).hasSize(1);

        Path noHeading =
                Fixtures.write(dir, "bare.yaml", Fixtures.lines("prices:", "  - {model: m, input: 1, output: 2}"));
        assertThatThrownBy(() -> PriceTable.read(noHeading))
                .hasMessage(noHeading + " is not a usable price table: asOf: required but missing");
    }

    @Test
    void aConfigPointsPricesFileAtATableItChecksItCanRead() throws Exception {
        Path file = litellmSample();
        SluiceConfig c = loadYaml(dir, "pricesFile: " + file, "prices:", "  - {model: gpt-5.4, input: 2, output: 12}");
        assertThat(c.pricesFile()).isEqualTo(file.toString());
        assertThat(c.prices()).extracting(PriceConfig::model).containsExactly("gpt-5.4");
        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.toString()).contains("pricesFile=" + file);

        // set from outside the file, as any scalar setting
        SluiceConfig fromProperty = ConfigLoader.load(ConfigSources.builder()
                .systemProperty("sluice.pricesFile", file.toString())
                .build());
        assertThat(fromProperty.pricesFile()).isEqualTo(file.toString());
        assertThat(SluiceConfig.defaults().pricesFile()).isEmpty();
    }

    @Test
    void aPricesFileThatCannotBeReadIsAConfigErrorNamingIt() throws Exception {
        assertThat(yamlProblems(dir, "mode: enforce", "pricesFile: /nowhere/prices.json"))
                .containsExactly("pricesFile: cannot read /nowhere/prices.json: no such file (sluice.yaml line 2)");
        assertThat(yamlProblems(dir, "pricesFile: " + dir))
                .containsExactly("pricesFile: cannot read " + dir + ": it is a directory (sluice.yaml line 1)");
        assertThatThrownBy(() -> SluiceConfig.builder()
                        .pricesFile("/nowhere/prices.json")
                        .build())
                .hasMessage("invalid sluice config: pricesFile: cannot read /nowhere/prices.json: no such file");
        assertThat(PriceTable.unreadable("")).isNull();
    }

    @Test
    void longContextTiersOneHourCacheWritesAndServiceTiersBindFromYaml() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "prices:",
                "  - model: my-pro",
                "    input: 2",
                "    cachedInput: 0.2",
                "    cacheWrite: 2.5",
                "    cacheWrite1h: 4",
                "    output: 12",
                "    longContext: {above: 200k, input: 4, output: 18}",
                "    serviceTiers: {priority: 1.8, flex: 0.5}");
        PriceConfig p = c.prices().get(0);
        assertThat(p.cacheWrite1h()).isEqualTo(4.0);
        assertThat(p.longContext().above()).isEqualTo(200_000);
        assertThat(p.longContext().input()).isEqualTo(4.0);
        assertThat(p.longContext().cachedInput())
                .as("not given: scaled from the entry's own")
                .isNull();
        assertThat(p.serviceTiers()).containsExactly(Map.entry("priority", 1.8), Map.entry("flex", 0.5));
        assertThat(PriceConfig.of("m", 1, 2).cacheWrite1h())
                .as("defaults to cacheWrite, itself input")
                .isEqualTo(1.0);
        assertThat(p)
                .isEqualTo(p.toBuilder().build())
                .isNotEqualTo(p.toBuilder().cacheWrite1h(5).build());
        assertThat(p.toString()).contains("cacheWrite1h=4", "longContext={above=200000", "serviceTiers={priority=1.8");
    }

    @Test
    void mistakesInTheNewRulesNameTheFieldAndTheRule() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "prices:",
                        "  - model: a",
                        "    input: 1",
                        "    output: 2",
                        "    cacheWrite1h: -1",
                        "    longContext: {input: 2}",
                        "    serviceTiers: {prority: 2, flex: -0.5}",
                        "  - model: b",
                        "    input: 1",
                        "    output: 2",
                        "    longContext: {above: 0, input: 2, output: 3, outpt: 4}",
                        "    serviceTiers: [priority]"))
                .containsExactly(
                        "prices[0].cacheWrite1h: -1 is not allowed, must be >= 0 (sluice.yaml line 5)",
                        "prices[0].longContext.above: required but missing (sluice.yaml line 6)",
                        "prices[0].longContext.output: required but missing (sluice.yaml line 6)",
                        "prices[0].serviceTiers.prority: unknown service tier, did you mean priority? the tiers priced"
                                + " are flex, batch, priority (standard is the price itself) (sluice.yaml line 7)",
                        "prices[0].serviceTiers.flex: -0.5 is not allowed, must be a factor >= 0 (0.5 is half price)"
                                + " (sluice.yaml line 7)",
                        "prices[1].longContext.above: 0 is not allowed, must be > 0 (a prompt length in tokens)"
                                + " (sluice.yaml line 11)",
                        "prices[1].longContext.outpt: unknown key, did you mean output? (sluice.yaml line 11)",
                        "prices[1].serviceTiers: expected a mapping of service tiers to factors, got a list"
                                + " (sluice.yaml line 12)");
    }
}
