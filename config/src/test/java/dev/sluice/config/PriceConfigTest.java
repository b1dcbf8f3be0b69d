package dev.sluice.config;

import static dev.sluice.config.Fixtures.loadYaml;
import static dev.sluice.config.Fixtures.yamlProblems;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The built-in price table and the config's {@code currency} and {@code prices}. */
class PriceConfigTest {
    @TempDir
    Path dir;

    @Test
    void theBuiltInTableLoadsWithoutProblemsAndSaysWhenAndWhereFrom() {
        assertThat(DefaultPrices.TABLE.problems()).isEmpty();
        assertThat(PriceConfig.defaultsAsOf()).isEqualTo("2026-12-07");
        assertThat(PriceConfig.defaultsCurrency()).isEqualTo("USD");
        assertThat(PriceConfig.defaultsSource())
                .contains("openai.com/api/pricing")
                .contains("anthropic.com/pricing")
                .contains("ai.google.dev/gemini-api/docs/pricing");
        assertThat(PriceConfig.defaults())
                .extracting(PriceConfig::model)
                .contains(
                        "gpt-4o",
                        "gpt-4o-mini",
                        "gpt-4.1",
                        "gpt-4.1-mini",
                        "gpt-4.1-nano",
                        "o1",
                        "o3",
                        "o3-mini",
                        "o4-mini",
                        "gpt-5",
                        "gpt-5-mini",
                        "gpt-5-nano",
                        "text-embedding-3-small",
                        "text-embedding-3-large",
                        "claude-opus-4-5",
                        "claude-opus-4-1",
                        "claude-opus-4",
                        "claude-sonnet-4-5",
                        "claude-sonnet-4",
                        "claude-3-7-sonnet",
                        "claude-3-5-haiku",
                        "claude-haiku-4-5",
                        "gemini-2.5-pro",
                        "gemini-2.5-flash",
                        "gemini-2.5-flash-lite",
                        "gemini-2.0-flash",
                        "gemini-2.0-flash-lite",
                        // current models, checked 2026-12-07
                        "gpt-5.2",
                        "gpt-5.4",
                        "gpt-5.4-mini",
                        "gpt-5.4-nano",
                        "gpt-5.5",
                        "gpt-5.6-sol",
                        "gpt-5.6-terra",
                        "gpt-5.6-luna",
                        "gpt-6.1-terra",
                        "claude-opus-4-6",
                        "claude-opus-4-7",
                        "claude-opus-4-8",
                        "claude-opus-5",
                        "claude-sonnet-4-6",
                        "claude-sonnet-5",
                        "gemini-3.1-pro-preview",
                        "gemini-3-flash-preview",
                        "gemini-3.1-flash-lite",
                        "gemini-3.5-flash",
                        "gemini-3.5-flash-lite")
                .doesNotHaveDuplicates();
        assertThat(PriceConfig.defaultServiceTiers())
                .containsEntry("flex", 0.5)
                .containsEntry("batch", 0.5)
                .containsEntry("priority", 2.0);
    }

    @Test
    void everyBuiltInPriceIsPositiveAndCacheDiscountsPointTheRightWay() {
        for (PriceConfig p : PriceConfig.defaults()) {
            assertThat(p.provider()).as(p.model()).isNull();
            assertThat(p.input()).as(p.model()).isPositive().isLessThan(100);
            assertThat(p.cachedInput()).as(p.model()).isPositive().isLessThanOrEqualTo(p.input());
            assertThat(p.cacheWrite()).as(p.model()).isGreaterThanOrEqualTo(p.input());
            if (p.model().startsWith("text-embedding-")) {
                assertThat(p.output()).as(p.model()).isZero();
            } else {
                assertThat(p.output()).as(p.model()).isGreaterThan(p.input()).isLessThan(1000);
            }
        }
    }

    @Test
    void anthropicEntriesBillCacheWritesAtOneAndAQuarterAndReadsAtATenthOfInput() {
        List<PriceConfig> claude = new java.util.ArrayList<>();
        for (PriceConfig p : PriceConfig.defaults()) {
            // Claude 3 Haiku's cache prices are published rounded to the cent: 0.30 and 0.03.
            if (p.model().startsWith("claude-") && !p.model().equals("claude-3-haiku")) {
                claude.add(p);
            }
        }
        assertThat(claude).hasSizeGreaterThanOrEqualTo(8);
        for (PriceConfig p : claude) {
            assertThat(p.cacheWrite()).as(p.model()).isCloseTo(p.input() * 1.25, within());
            assertThat(p.cachedInput()).as(p.model()).isCloseTo(p.input() * 0.1, within());
        }
        for (PriceConfig p : PriceConfig.defaults()) {
            if (p.model().startsWith("claude-")) {
                assertThat(p.cacheWrite1h()).as("1-hour writes, " + p.model()).isCloseTo(p.input() * 2, within());
            }
        }
        Map<String, PriceConfig> byModel = byModel();
        assertThat(byModel.get("claude-sonnet-4-5").input()).isEqualTo(3.0);
        assertThat(byModel.get("claude-sonnet-4-5").output()).isEqualTo(15.0);
        assertThat(byModel.get("claude-opus-4").aliases()).containsExactly("claude-opus-4-0");
    }

    @Test
    void theShippedJsonIsTheYamlTableAsWritten() throws Exception {
        String yaml = Files.readString(Path.of("src/main/prices/default-prices.yaml"));
        PriceTable written = DefaultPrices.parse(yaml, "default-prices.yaml", DocumentParser.Format.YAML);
        assertThat(written.problems()).isEmpty();
        assertThat(DefaultPrices.TABLE.entries())
                .isEqualTo(written.entries())
                .hasSize(written.entries().size());
        assertThat(DefaultPrices.TABLE.asOf()).isEqualTo(written.asOf());
        assertThat(DefaultPrices.TABLE.source()).isEqualTo(written.source());
        assertThat(DefaultPrices.TABLE.currency()).isEqualTo(written.currency());
        assertThat(DefaultPrices.TABLE.serviceTiers()).isEqualTo(written.serviceTiers());
    }

    @Test
    void theYamlToJsonStepKeepsNumbersAsWritten() throws Exception {
        assertThat(DefaultPricesJson.toJson(Fixtures.lines(
                        "asOf: \"2026-12-01\"", "prices:", "  - {model: m, input: 2.50, output: 0.075}")))
                .isEqualTo(
                        "{\"asOf\":\"2026-12-01\",\"prices\":[{\"model\":\"m\",\"input\":2.50,\"output\":0.075}]}\n");
    }

    @Test
    void theYamlToJsonStepRefusesAnchorsAndAliases() {
        assertThatThrownBy(() -> DefaultPricesJson.toJson(
                        Fixtures.lines("prices:", "  - &gpt {model: m, input: 1, output: 2}", "  - *gpt")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("anchor or alias");
    }

    @Test
    void knownListPricesAreAsPublished() {
        Map<String, PriceConfig> byModel = byModel();
        assertThat(byModel.get("gpt-4o-mini").input()).isEqualTo(0.15);
        assertThat(byModel.get("gpt-4o-mini").cachedInput()).isEqualTo(0.075);
        assertThat(byModel.get("gpt-4o-mini").output()).isEqualTo(0.60);
        assertThat(byModel.get("gpt-4o").output()).isEqualTo(10.0);
        assertThat(byModel.get("gemini-2.5-pro").input()).isEqualTo(1.25);
        // No context caching: a cached read costs what input costs.
        assertThat(byModel.get("gemini-2.0-flash-lite").cachedInput()).isEqualTo(0.075);
        // over 272k input tokens, gpt-5.4 bills the whole request at 5.00 / 0.50 / 22.50
        PriceConfig.LongContext gpt54 = byModel.get("gpt-5.4").longContext();
        assertThat(gpt54.above()).isEqualTo(272_000);
        assertThat(gpt54.input()).isEqualTo(5.0);
        assertThat(gpt54.cachedInput()).isEqualTo(0.5);
        assertThat(gpt54.output()).isEqualTo(22.5);
        assertThat(byModel.get("gemini-3.1-pro-preview").longContext().above()).isEqualTo(200_000);
        assertThat(byModel.get("gpt-5.6-sol").cacheWrite())
                .as("OpenAI cache writes, gpt-5.6 and later")
                .isEqualTo(6.25);
        assertThat(byModel.get("claude-sonnet-5").output()).isEqualTo(10.0);
    }

    @Test
    void aMalformedTableYieldsNoPricesAndNamesItsProblems() {
        PriceTable t = DefaultPrices.parse(
                Fixtures.lines(
                        "asOf: \"2026-12-01\"",
                        "currency: USD",
                        "prices:",
                        "  - {model: a, input: 1, output: 2}",
                        "  - {model: b, input: 1, ouput: 2}",
                        "  - {model: A, input: -1, output: 2}"),
                "table.yaml",
                DocumentParser.Format.YAML);
        assertThat(t.entries()).isEmpty();
        assertThat(t.problems())
                .extracting(ConfigProblem::toString)
                .containsExactly(
                        "prices[1].ouput: unknown key, did you mean output? (table.yaml line 5)",
                        "source: required but missing",
                        "prices[1].output: required but missing (table.yaml line 5)",
                        "prices[2].input: -1 is not allowed, must be >= 0 (table.yaml line 6)",
                        "prices[2].model: \"A\" is already priced by prices[0].model (table.yaml line 6)");
    }

    @Test
    void pricesAndCurrencyBindFromYaml() throws Exception {
        SluiceConfig c = loadYaml(
                dir,
                "currency: EUR",
                "providers:",
                "  - name: azure-east",
                "    kind: azure-openai",
                "    match: {hosts: [acme.openai.azure.com]}",
                "prices:",
                "  - model: gpt-4o",
                "    input: 2.3",
                "    output: 9.2",
                "  - model: gpt-4o",
                "    provider: azure-east",
                "    input: 2",
                "    cachedInput: 1",
                "    output: 8",
                "    aliases: [gpt4o-prod, chat-deployment]",
                "  - model: claude-sonnet-4-5",
                "    provider: anthropic",
                "    input: 3",
                "    cacheWrite: 3.75",
                "    cachedInput: 0.3",
                "    output: 15");
        assertThat(c.currency()).isEqualTo("EUR");
        assertThat(c.prices()).hasSize(3);
        PriceConfig plain = c.prices().get(0);
        assertThat(plain.provider()).isNull();
        assertThat(plain.cachedInput()).as("defaults to input").isEqualTo(2.3);
        assertThat(plain.cacheWrite()).as("defaults to input").isEqualTo(2.3);
        assertThat(plain.aliases()).isEmpty();
        PriceConfig azure = c.prices().get(1);
        assertThat(azure.provider()).isEqualTo("azure-east");
        assertThat(azure.aliases()).containsExactly("gpt4o-prod", "chat-deployment");
        assertThat(azure.cachedInput()).isEqualTo(1.0);
        assertThat(azure.cacheWrite()).isEqualTo(2.0);
        assertThat(c.prices().get(2))
                .isEqualTo(PriceConfig.builder()
                        .model("claude-sonnet-4-5")
                        .provider("anthropic")
                        .input(3)
                        .cacheWrite(3.75)
                        .cachedInput(0.3)
                        .output(15)
                        .build());
    }

    @Test
    void currencyDefaultsToUsdAndPricesToNone() throws Exception {
        SluiceConfig c = loadYaml(dir, "mode: enforce");
        assertThat(c.currency()).isEqualTo("USD");
        assertThat(c.prices()).isEmpty();
        assertThat(SluiceConfig.defaults().currency()).isEqualTo("USD");
        assertThat(SluiceConfig.defaults().prices()).isEmpty();
    }

    @Test
    void currencyAndPricesTakePartInEqualityAndSurviveToBuilder() {
        SluiceConfig base = SluiceConfig.defaults();
        PriceConfig price = PriceConfig.of("my-model", 1, 2);
        SluiceConfig priced = base.toBuilder().price(price).build();
        SluiceConfig euros = base.toBuilder().currency("EUR").build();
        assertThat(priced).isNotEqualTo(base);
        assertThat(euros).isNotEqualTo(base);
        assertThat(priced.toBuilder().build()).isEqualTo(priced).hasSameHashCodeAs(priced);
        assertThat(euros.toBuilder().build().currency()).isEqualTo("EUR");
        assertThat(priced.toString()).contains("currency=USD").contains("prices=[PriceConfig{my-model");
        assertThat(price.toBuilder().alias("x").build()).isNotEqualTo(price);
        assertThat(price.toBuilder().build()).isEqualTo(price);
    }

    @Test
    void priceErrorsNameTheFieldAndTheRule() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "prices:",
                        "  - input: 1",
                        "    output: 2",
                        "  - model: gpt-4o",
                        "    input: .nan",
                        "    output: 2",
                        "  - model: my-model",
                        "    input: 1",
                        "    output: -1",
                        "    cachedInput: \"0.5\"",
                        "  - model: other",
                        "    input: 1",
                        "    ouptut: 2",
                        "  - model: GPT-4o",
                        "    input: 1",
                        "    output: 2",
                        "    provider: opnai",
                        "  - model: gpt-4o",
                        "    input: 1",
                        "    output: 2",
                        "    aliases: [my-model]",
                        "    cacheWrite: -0.5"))
                .containsExactly(
                        "prices[0].model: required but missing (sluice.yaml line 2)",
                        "prices[1].input: expected a number, got .nan (sluice.yaml line 5)",
                        "prices[2].output: -1 is not allowed, must be >= 0 (sluice.yaml line 9)",
                        "prices[2].cachedInput: \"0.5\" is quoted; write numbers without quotes (sluice.yaml line 10)",
                        "prices[3].output: required but missing (sluice.yaml line 11)",
                        "prices[3].ouptut: unknown key, did you mean output? (sluice.yaml line 13)",
                        "prices[4].provider: \"opnai\" names no provider kind or declared provider, did you mean"
                                + " openai? (sluice.yaml line 17)",
                        "prices[5].model: \"gpt-4o\" is already priced by prices[1].model (sluice.yaml line 18)",
                        "prices[5].aliases[0]: \"my-model\" is already priced by prices[2].model (sluice.yaml line 21)",
                        "prices[5].cacheWrite: -0.5 is not allowed, must be >= 0 (sluice.yaml line 22)");
    }

    @Test
    void aCurrencyIsAShortNameAndPricesAList() throws Exception {
        assertThat(yamlProblems(dir, "currency: US Dollars", "prices: {model: gpt-4o}"))
                .containsExactly(
                        "currency: \"US Dollars\" is not allowed, must be 1 to 12 letters or digits, such as USD or EUR"
                                + " (sluice.yaml line 1)",
                        "prices: expected a list, got a mapping (sluice.yaml line 2)");
        assertThat(yamlProblems(dir, "prices:", "  - gpt-4o"))
                .containsExactly("prices[0]: expected a mapping (one price), got \"gpt-4o\" (sluice.yaml line 2)");
    }

    @Test
    void builtPricesAreValidatedLikeLoadedOnes() {
        assertThatThrownBy(() -> PriceConfig.builder()
                        .model("m")
                        .input(1)
                        .output(Double.NaN)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid price m: output: NaN is not allowed, must be >= 0");
        assertThatThrownBy(() -> PriceConfig.builder().model("m").output(1).build())
                .hasMessage("invalid price m: input: required but missing");
        assertThatThrownBy(() -> SluiceConfig.builder()
                        .price(PriceConfig.of("m", 1, 2))
                        .price(PriceConfig.builder()
                                .model("M")
                                .provider("openai")
                                .input(1)
                                .output(2)
                                .build())
                        .price(PriceConfig.builder()
                                .model("n")
                                .alias("m")
                                .input(1)
                                .output(2)
                                .build())
                        .currency("")
                        .build())
                .hasMessage("invalid sluice config: currency: \"\" is not allowed, must be 1 to 12 letters or digits,"
                        + " such as USD or EUR; prices[2].aliases[0]: \"m\" is already priced by prices[0].model");
    }

    private static Map<String, PriceConfig> byModel() {
        Map<String, PriceConfig> map = new HashMap<>();
        for (PriceConfig p : PriceConfig.defaults()) {
            map.put(p.model(), p);
        }
        return map;
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(1e-9);
    }
}
