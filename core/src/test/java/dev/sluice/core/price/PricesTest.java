package dev.sluice.core.price;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.PriceConfig;
import dev.sluice.config.ProviderConfig;
import dev.sluice.config.ProviderKind;
import dev.sluice.config.SluiceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which price a call to a provider and model is counted with. */
class PricesTest {
    private final Prices defaults = Prices.defaults();

    private double input(Prices prices, String model) {
        return prices.priceOf(null, null, model).input();
    }

    @Test
    void everyBuiltInEntryPricesItsOwnModel() {
        for (PriceConfig p : PriceConfig.defaults()) {
            Price price = defaults.priceOf(null, null, p.model());
            assertThat(price).as(p.model()).isEqualTo(Price.of(p, PriceConfig.defaultServiceTiers()));
            for (String alias : p.aliases()) {
                assertThat(defaults.priceOf(null, null, alias)).as(alias).isEqualTo(price);
            }
        }
        assertThat(defaults.currency()).isEqualTo("USD");
        assertThat(defaults.asOf()).isEqualTo("2026-12-07");
        assertThat(defaults.source()).contains("openai.com/api/pricing");
        assertThat(defaults.includesDefaults()).isTrue();
    }

    @Test
    void datedSnapshotsArePricedByTheirFamily() {
        assertThat(input(defaults, "gpt-4o-mini-2024-07-18")).isEqualTo(0.15);
        assertThat(input(defaults, "gpt-4o-2024-08-06")).isEqualTo(2.50);
        assertThat(input(defaults, "gpt-4.1-2025-04-14")).isEqualTo(2.00);
        assertThat(input(defaults, "gpt-4.1-mini-2025-04-14")).isEqualTo(0.40);
        assertThat(input(defaults, "gpt-5-mini-2025-08-07")).isEqualTo(0.25);
        assertThat(input(defaults, "o3-mini-2025-01-31")).isEqualTo(1.10);
        assertThat(input(defaults, "o1-preview")).isEqualTo(15.00);
        assertThat(input(defaults, "claude-3-5-haiku-20241022")).isEqualTo(0.80);
        assertThat(input(defaults, "claude-3-5-haiku-latest")).isEqualTo(0.80);
        assertThat(input(defaults, "claude-sonnet-4-5-20250929")).isEqualTo(3.00);
        assertThat(input(defaults, "claude-opus-4-1-20250805")).isEqualTo(15.00);
        assertThat(input(defaults, "claude-opus-4-5-20251101")).isEqualTo(5.00);
        assertThat(input(defaults, "claude-opus-4-20250514")).isEqualTo(15.00);
        assertThat(input(defaults, "claude-haiku-4-5-20251001")).isEqualTo(1.00);
        assertThat(input(defaults, "gemini-2.5-flash-preview-05-20")).isEqualTo(0.30);
        assertThat(input(defaults, "gemini-2.5-flash-lite-preview-09-2025")).isEqualTo(0.10);
        assertThat(input(defaults, "gemini-2.0-flash-001")).isEqualTo(0.10);
        assertThat(input(defaults, "gemini-2.0-flash-lite-001")).isEqualTo(0.075);
        assertThat(input(defaults, "gemini-2.5-pro-exp-03-25")).isEqualTo(1.25);
        assertThat(input(defaults, "gemini-3-pro-preview")).isEqualTo(2.00);
    }

    @Test
    void aLongerFamilyIsNeverPricedAsTheShorterOne() {
        assertThat(input(defaults, "gpt-4o-mini-2024-07-18")).isNotEqualTo(2.50);
        assertThat(input(defaults, "gpt-4.1-mini")).isEqualTo(0.40).isNotEqualTo(2.00);
        assertThat(input(defaults, "gpt-4.1-nano")).isEqualTo(0.10);
        assertThat(input(defaults, "claude-opus-4-5")).isEqualTo(5.00).isNotEqualTo(15.00);
        assertThat(input(defaults, "gemini-2.5-flash-lite")).isEqualTo(0.10);
        // The first gpt-4o snapshot has its own, higher price: an exact entry beats the family.
        assertThat(input(defaults, "gpt-4o-2024-05-13")).isEqualTo(5.00);
    }

    @Test
    void aSuffixWithAWordInItIsAnotherModelAndUnknown() {
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, "o3-pro")).isNull();
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, "o3-pro-2025-06-10"))
                .isNull();
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, "gpt-4o-audio-preview"))
                .isNull();
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, "gpt-4o-realtime-preview-2024-12-17"))
                .isNull();
        assertThat(defaults.priceOf(null, ProviderKind.GEMINI, "gemini-2.5-flash-image-preview"))
                .isNull();
        // A single digit is a model generation, not a version: claude-opus-4-9 is not claude-opus-4.
        assertThat(defaults.priceOf(null, ProviderKind.ANTHROPIC, "claude-opus-4-9"))
                .isNull();
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, "llama-3.1-70b")).isNull();
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, "")).isNull();
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, "-")).isNull();
        assertThat(defaults.priceOf(null, ProviderKind.OPENAI, null)).isNull();
    }

    @Test
    void namesMatchWhateverTheirCaseAndPathOrVertexVersion() {
        assertThat(input(defaults, "GPT-4o-Mini")).isEqualTo(0.15);
        assertThat(input(defaults, "models/gemini-2.5-pro")).isEqualTo(1.25);
        assertThat(input(defaults, "publishers/google/models/gemini-2.0-flash-001"))
                .isEqualTo(0.10);
        assertThat(input(defaults, "claude-sonnet-4-5@20250929")).isEqualTo(3.00);
        assertThat(input(defaults, "claude-opus-4-0")).as("an alias").isEqualTo(15.00);
    }

    @Test
    void configEntriesReplaceBuiltInOnesOfTheSameModelAndAddOthers() {
        Prices prices = Prices.of(SluiceConfig.builder()
                .price(PriceConfig.builder()
                        .model("GPT-4o")
                        .input(2.00)
                        .output(8.00)
                        .build())
                .price(PriceConfig.builder()
                        .model("my-finetune")
                        .alias("support-bot")
                        .input(0.30)
                        .output(1.20)
                        .build())
                .build());
        Price gpt4o = prices.priceOf("openai", ProviderKind.OPENAI, "gpt-4o");
        assertThat(gpt4o).isEqualTo(Price.of(PriceConfig.of("gpt-4o", 2.00, 8.00), PriceConfig.defaultServiceTiers()));
        assertThat(gpt4o.cachedInput())
                .as("not the built-in 1.25: the whole entry is replaced")
                .isEqualTo(2.00);
        assertThat(prices.priceOf("openai", ProviderKind.OPENAI, "gpt-4o-2024-11-20"))
                .isEqualTo(gpt4o);
        assertThat(input(prices, "gpt-4o-mini")).as("untouched").isEqualTo(0.15);
        assertThat(input(prices, "my-finetune")).isEqualTo(0.30);
        assertThat(input(prices, "Support-Bot")).isEqualTo(0.30);
    }

    @Test
    void anAliasInTheConfigWinsOverABuiltInModelOfThatName() {
        Prices prices = Prices.of(SluiceConfig.builder()
                .price(PriceConfig.builder()
                        .model("acme-gpt")
                        .alias("gpt-4o")
                        .input(9)
                        .output(9)
                        .build())
                .build());
        assertThat(input(prices, "gpt-4o")).isEqualTo(9);
    }

    @Test
    void restrictedEntriesComeFirstForTheirProviderNameOrKindOnly() {
        SluiceConfig config = SluiceConfig.builder()
                .provider(ProviderConfig.builder("azure-east", ProviderKind.AZURE_OPENAI)
                        .build())
                .price(PriceConfig.builder()
                        .model("gpt-4o")
                        .provider("azure-east")
                        .alias("chat-prod")
                        .input(2.20)
                        .output(8.80)
                        .build())
                .price(PriceConfig.builder()
                        .model("gpt-4o")
                        .provider("openai-compatible")
                        .input(0)
                        .output(0)
                        .build())
                .build();
        Prices prices = Prices.of(config);
        assertThat(prices.priceOf("azure-east", ProviderKind.AZURE_OPENAI, "gpt-4o")
                        .input())
                .isEqualTo(2.20);
        assertThat(prices.priceOf("azure-east", ProviderKind.AZURE_OPENAI, "gpt-4o-2024-11-20")
                        .input())
                .isEqualTo(2.20);
        assertThat(prices.priceOf("azure-east", ProviderKind.AZURE_OPENAI, "chat-prod")
                        .input())
                .as("a deployment name")
                .isEqualTo(2.20);
        assertThat(prices.priceOf("openai", ProviderKind.OPENAI, "chat-prod")).isNull();
        assertThat(prices.priceOf("openai", ProviderKind.OPENAI, "gpt-4o").input())
                .isEqualTo(2.50);
        assertThat(prices.priceOf("azure-west", ProviderKind.AZURE_OPENAI, "gpt-4o")
                        .input())
                .isEqualTo(2.50);
        assertThat(prices.priceOf("vllm", ProviderKind.OPENAI_COMPATIBLE, "gpt-4o")
                        .input())
                .as("restricted by kind")
                .isZero();
        assertThat(prices.priceOf(null, ProviderKind.OPENAI_COMPATIBLE, "gpt-4o")
                        .input())
                .isZero();
        assertThat(prices.priceOf("azure-east", ProviderKind.AZURE_OPENAI, "gpt-4o-mini")
                        .input())
                .as("falls back to any provider's entries")
                .isEqualTo(0.15);
    }

    @Test
    void anotherCurrencyLeavesTheBuiltInUsdTableOut() {
        Prices euros = Prices.of(SluiceConfig.builder()
                .currency("EUR")
                .price(PriceConfig.of("gpt-4o", 2.30, 9.20))
                .build());
        assertThat(euros.currency()).isEqualTo("EUR");
        assertThat(euros.includesDefaults()).isFalse();
        assertThat(euros.asOf()).isNull();
        assertThat(input(euros, "gpt-4o-2024-08-06")).isEqualTo(2.30);
        assertThat(euros.priceOf(null, null, "gpt-4o-mini")).isNull();
        assertThat(Prices.of(SluiceConfig.builder().currency("usd").build()).includesDefaults())
                .isTrue();
    }

    @Test
    void resolutionsAreRememberedUnknownModelsIncludedWithinABound() {
        Prices prices = Prices.defaults();
        Price first = prices.priceOf("openai", ProviderKind.OPENAI, "gpt-4o-mini-2024-07-18");
        assertThat(prices.priceOf("openai", ProviderKind.OPENAI, "gpt-4o-mini-2024-07-18"))
                .isSameAs(first);
        assertThat(prices.priceOf("openai", ProviderKind.OPENAI, "no-such-model"))
                .isNull();
        assertThat(prices.cachedNames()).isEqualTo(2);
        for (int i = 0; i < 5 * Prices.CACHE_LIMIT; i++) {
            assertThat(prices.priceOf("openai", ProviderKind.OPENAI, "made-up-" + i))
                    .isNull();
            assertThat(prices.cachedNames()).isLessThanOrEqualTo(Prices.CACHE_LIMIT);
        }
        assertThat(prices.priceOf("openai", ProviderKind.OPENAI, "gpt-4o-mini-2024-07-18"))
                .isEqualTo(first);
        assertThat(prices.priceOf(null, null, "gpt-4o-mini-2024-07-18")).isEqualTo(first);
        assertThat(prices.toString()).startsWith("Prices{USD, ").endsWith("built-in table of 2026-12-07}");
    }

    @Test
    void versionPartsAreDatesNumbersAndTheUsualWords() {
        for (String v : new String[] {"2024", "07", "20241022", "001", "v2", "latest", "preview", "exp"}) {
            assertThat(Prices.isVersion("x-" + v, 2, 2 + v.length())).as(v).isTrue();
        }
        for (String v : new String[] {"5", "mini", "pro", "v", "lite", "audio", "latest1", "previews", ""}) {
            assertThat(Prices.isVersion("x-" + v, 2, 2 + v.length())).as(v).isFalse();
        }
    }

    @Test
    void bedrockModelIdsAndTheirInferenceProfilesArePricedByTheirFamily() {
        Price sonnet = defaults.priceOf(null, ProviderKind.ANTHROPIC, "claude-sonnet-4-5");
        for (String id : new String[] {
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "apac.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
        }) {
            assertThat(defaults.priceOf("bedrock", null, id)).as(id).isEqualTo(sonnet);
        }
        assertThat(input(defaults, "anthropic.claude-haiku-4-5-20251001-v1:0")).isEqualTo(1.00);
        assertThat(input(defaults, "us.anthropic.claude-opus-4-6-v1")).isEqualTo(5.00);
        assertThat(input(defaults, "anthropic.claude-3-5-haiku-20241022-v1:0")).isEqualTo(0.80);
        // a dot in a version is not a prefix, and a prefix does not make another model known
        assertThat(input(defaults, "gpt-4.1")).isEqualTo(2.00);
        assertThat(defaults.priceOf(null, null, "us.anthropic.claude-opus-4-9-v1:0"))
                .isNull();
        assertThat(defaults.priceOf(null, null, "anthropic.")).isNull();
        assertThat(Prices.withoutPrefix("us.anthropic.x")).isEqualTo("anthropic.x");
        assertThat(Prices.withoutPrefix("us-gov.anthropic.x")).isEqualTo("anthropic.x");
        assertThat(Prices.withoutPrefix("gpt-4.1")).isNull();
        assertThat(Prices.withoutPrefix("gemini-2.5-pro")).isNull();
    }

    @Test
    void aBedrockIdPricedInATableIsUsedBeforeItsFamily() {
        // a regional profile billed 10 % more, as a price table may say
        Prices prices = Prices.of(SluiceConfig.builder()
                .price(PriceConfig.builder()
                        .model("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
                        .input(3.30)
                        .output(16.50)
                        .build())
                .build());
        assertThat(input(prices, "us.anthropic.claude-sonnet-4-5-20250929-v1:0"))
                .isEqualTo(3.30);
        assertThat(input(prices, "eu.anthropic.claude-sonnet-4-5-20250929-v1:0"))
                .isEqualTo(3.00);
        assertThat(input(prices, "anthropic.claude-sonnet-4-5-20250929-v1:0")).isEqualTo(3.00);
    }

    @Test
    void versionPartsIncludeBedrocksVersions() {
        for (String v : new String[] {"v1:0", "v2:1", "v10:12"}) {
            assertThat(Prices.isVersion("x-" + v, 2, 2 + v.length())).as(v).isTrue();
        }
        for (String v : new String[] {"v:0", "v1:", "v1:a", "1:0"}) {
            assertThat(Prices.isVersion("x-" + v, 2, 2 + v.length())).as(v).isFalse();
        }
    }

    @Test
    void aPricesFileSitsBetweenTheBuiltInTableAndTheConfigsOwnEntries(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("litellm.json");
        Files.writeString(
                file,
                "{\"gpt-4o\": {\"litellm_provider\": \"openai\", \"mode\": \"chat\","
                        + " \"input_cost_per_token\": 3e-06, \"output_cost_per_token\": 1.2e-05},"
                        + " \"gpt-9\": {\"litellm_provider\": \"openai\", \"mode\": \"chat\","
                        + " \"input_cost_per_token\": 1e-05, \"output_cost_per_token\": 4e-05,"
                        + " \"input_cost_per_token_priority\": 1.5e-05},"
                        + " \"azure/gpt-9\": {\"litellm_provider\": \"azure\", \"mode\": \"chat\","
                        + " \"input_cost_per_token\": 1.1e-05, \"output_cost_per_token\": 4.4e-05},"
                        + " \"claude-sonnet-4-5\": {\"litellm_provider\": \"anthropic\", \"mode\": \"chat\","
                        + " \"input_cost_per_token\": 2.9e-06, \"output_cost_per_token\": 1.4e-05}}");
        SluiceConfig config = SluiceConfig.builder()
                .pricesFile(file.toString())
                .price(PriceConfig.builder()
                        .model("claude-sonnet-4-5")
                        .input(2.50)
                        .output(12.00)
                        .build())
                .build();
        Prices prices = Prices.of(config);
        assertThat(input(prices, "gpt-4o"))
                .as("the file replaces the built-in entry")
                .isEqualTo(3.00);
        assertThat(input(prices, "gpt-9"))
                .as("and adds models the built-in table lacks")
                .isEqualTo(10.00);
        assertThat(prices.priceOf("azure-east", ProviderKind.AZURE_OPENAI, "gpt-9")
                        .input())
                .as("Azure's own price, for Azure providers")
                .isEqualTo(11.00);
        assertThat(input(prices, "claude-sonnet-4-5"))
                .as("the config's own entries win")
                .isEqualTo(2.50);
        assertThat(input(prices, "gpt-4o-mini"))
                .as("the built-in table still prices the rest")
                .isEqualTo(0.15);
        Price gpt9 = prices.priceOf(null, null, "gpt-9");
        assertThat(gpt9.factor(ServiceTier.PRIORITY)).as("its own factor").isEqualTo(1.5);
        assertThat(gpt9.factor(ServiceTier.FLEX)).as("the built-in table's").isEqualTo(0.5);
        assertThat(prices.describeTables())
                .startsWith("built-in table of 2026-12-07; " + file + " (litellm, ")
                .endsWith(", 4 models); 1 config entry");

        // in another currency, neither USD table applies
        Prices euros = Prices.of(config.toBuilder()
                .currency("EUR")
                .prices(java.util.List.of(PriceConfig.of("gpt-9", 9, 36)))
                .build());
        assertThat(euros.priceOf(null, null, "gpt-4o")).isNull();
        assertThat(input(euros, "gpt-9")).isEqualTo(9.0);
        assertThat(euros.describeTables())
                .isEqualTo("pricesFile " + file + " prices nothing: its prices are in USD, spend limits in EUR; 1"
                        + " config entry");
    }

    @Test
    void aPricesFileThatCannotBeUsedPricesNothingAndSaysWhy(@TempDir Path dir) throws Exception {
        Path broken = dir.resolve("prices.json");
        Files.writeString(broken, "{\"gpt-9\": {\"input_cost_per_token\": 1e-06,");
        Prices prices =
                Prices.of(SluiceConfig.builder().pricesFile(broken.toString()).build());
        assertThat(prices.priceOf(null, null, "gpt-9")).isNull();
        assertThat(input(prices, "gpt-4o-mini"))
                .as("the built-in table still prices")
                .isEqualTo(0.15);
        assertThat(prices.fileTable()).isNull();
        assertThat(prices.describeTables())
                .startsWith("built-in table of 2026-12-07; pricesFile " + broken + " prices nothing: " + broken
                        + " is not a usable price table: it is not JSON");

        Path euros = dir.resolve("euros.yaml");
        Files.writeString(
                euros,
                "asOf: \"2026-12-07\"\nsource: contract\ncurrency: EUR\nprices: [{model: gpt-9, input: 1, output: 2}]\n");
        Prices inDollars =
                Prices.of(SluiceConfig.builder().pricesFile(euros.toString()).build());
        assertThat(inDollars.priceOf(null, null, "gpt-9")).isNull();
        assertThat(inDollars.describeTables())
                .endsWith("pricesFile " + euros + " prices nothing: its prices are in EUR, spend limits in USD");
    }
}
