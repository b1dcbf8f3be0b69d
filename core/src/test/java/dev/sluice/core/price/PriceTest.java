package dev.sluice.core.price;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.PriceConfig;
import dev.sluice.config.ProviderKind;
import dev.sluice.core.Usage;
import org.junit.jupiter.api.Test;

/** Tokens to micro-units: worst cases round up, costs to the nearest, cache prices as each provider bills them. */
class PriceTest {
    private static final Price GPT_4O_MINI = Prices.defaults().priceOf(null, ProviderKind.OPENAI, "gpt-4o-mini");
    private static final Price CLAUDE_SONNET_4_5 =
            Prices.defaults().priceOf(null, ProviderKind.ANTHROPIC, "claude-sonnet-4-5");

    @Test
    void aPricePerMillionTokensIsMicroUnitsPerToken() {
        // 1M input tokens at 0.15 and 1M output tokens at 0.60: $0.75, 750,000 micro-USD.
        assertThat(GPT_4O_MINI.worstCaseMicros(1_000_000, 1_000_000)).isEqualTo(750_000);
        assertThat(GPT_4O_MINI.worstCaseMicros(1_000, 1_000)).isEqualTo(750);
    }

    @Test
    void theWorstCaseRoundsUpButNeverBecauseOfBinaryFractions() {
        assertThat(GPT_4O_MINI.worstCaseMicros(1, 0)).as("0.15 micro-USD").isEqualTo(1);
        assertThat(GPT_4O_MINI.worstCaseMicros(0, 1)).as("0.6 micro-USD").isEqualTo(1);
        assertThat(GPT_4O_MINI.worstCaseMicros(0, 0)).isZero();
        // In doubles 100 x 0.07 is 7.000000000000001, which a plain ceil would make 8.
        assertThat(100 * 0.07).isGreaterThan(7);
        assertThat(Price.of(0.07, 0).worstCaseMicros(100, 0)).isEqualTo(7);
        assertThat(Price.of(0.07, 0).worstCaseMicros(101, 0)).isEqualTo(8);
        assertThat(Price.of(0.1, 0.7).worstCaseMicros(3, 10)).as("0.3 + 7").isEqualTo(8);
    }

    @Test
    void theWorstCaseAssumesNoCacheDiscountAndTakesNegativeCountsAsZero() {
        assertThat(CLAUDE_SONNET_4_5.worstCaseMicros(10_000, 1_000)).isEqualTo(10_000 * 3 + 1_000 * 15);
        assertThat(CLAUDE_SONNET_4_5.worstCaseMicros(-5, -1)).isZero();
    }

    @Test
    void openAiCachedReadsAreInsideInputAndBilledAtTheCachedPrice() {
        Usage usage = Usage.builder()
                .inputTokens(10_000)
                .cachedInputTokens(4_000)
                .outputTokens(500)
                .build();
        // 6,000 x 0.15 + 4,000 x 0.075 + 500 x 0.60 = 900 + 300 + 300
        assertThat(GPT_4O_MINI.costMicros(usage, true)).isEqualTo(1_500);
        Price gpt4o = Prices.defaults().priceOf("openai", ProviderKind.OPENAI, "gpt-4o-2024-08-06");
        Usage other = Usage.builder()
                .inputTokens(1_234)
                .cachedInputTokens(1_024)
                .outputTokens(77)
                .build();
        // 210 x 2.50 + 1,024 x 1.25 + 77 x 10.00 = 525 + 1,280 + 770
        assertThat(gpt4o.costMicros(other, true)).isEqualTo(2_575);
    }

    @Test
    void anthropicCacheWritesAreInsideInputAndReadsComeOnTop() {
        // Anthropic said: input_tokens 1,000, cache_creation_input_tokens 2,000,
        // cache_read_input_tokens 10,000, output_tokens 300 (AnthropicUsageTally's Usage).
        Usage usage = Usage.builder()
                .inputTokens(3_000)
                .cacheCreationInputTokens(2_000)
                .cachedInputTokens(10_000)
                .outputTokens(300)
                .build();
        // 1,000 x 3 + 2,000 x 3.75 + 10,000 x 0.30 + 300 x 15 = 3,000 + 7,500 + 3,000 + 4,500
        assertThat(CLAUDE_SONNET_4_5.costMicros(usage, false)).isEqualTo(18_000);
        assertThat(Prices.inputCountsCacheReads(ProviderKind.ANTHROPIC)).isFalse();
    }

    @Test
    void everyKindButAnthropicAndBedrockCountsCacheReadsInInput() {
        for (ProviderKind kind : ProviderKind.values()) {
            assertThat(Prices.inputCountsCacheReads(kind))
                    .as(kind.configName())
                    .isEqualTo(kind != ProviderKind.ANTHROPIC && kind != ProviderKind.BEDROCK);
        }
    }

    @Test
    void reasoningTokensAreCountedOnceAsOutput() {
        Price o4mini = Prices.defaults().priceOf(null, ProviderKind.OPENAI, "o4-mini-2025-04-16");
        Usage usage = Usage.builder()
                .inputTokens(100)
                .outputTokens(1_000)
                .reasoningTokens(800)
                .build();
        // 100 x 1.10 + 1,000 x 4.40: the 800 reasoning tokens are inside the 1,000.
        assertThat(o4mini.costMicros(usage, true)).isEqualTo(4_510);
    }

    @Test
    void costsRoundToTheNearestMicroUnit() {
        assertThat(GPT_4O_MINI.costMicros(Usage.builder().inputTokens(3).build(), true))
                .as("0.45")
                .isZero();
        assertThat(GPT_4O_MINI.costMicros(Usage.builder().inputTokens(7).build(), true))
                .as("1.05")
                .isEqualTo(1);
        assertThat(GPT_4O_MINI.costMicros(Usage.builder().inputTokens(10).build(), true))
                .as("1.5")
                .isEqualTo(2);
        assertThat(GPT_4O_MINI.costMicros(Usage.NONE, true)).isZero();
        assertThat(GPT_4O_MINI.costMicros(null, true)).isZero();
    }

    @Test
    void usageThatDoesNotAddUpIsNeverNegativeNorAnError() {
        Price gpt4o = Price.of(2.50, 1.25, 2.50, 10.00);
        Usage moreCachedThanInput =
                Usage.builder().inputTokens(100).cachedInputTokens(500).build();
        assertThat(gpt4o.costMicros(moreCachedThanInput, true))
                .as("all 100 as cached")
                .isEqualTo(125);
        Usage moreWritesThanInput =
                Usage.builder().inputTokens(100).cacheCreationInputTokens(500).build();
        assertThat(CLAUDE_SONNET_4_5.costMicros(moreWritesThanInput, false))
                .as("all 100 as writes")
                .isEqualTo(375);
        Usage huge = Usage.builder()
                .inputTokens(Long.MAX_VALUE)
                .outputTokens(Long.MAX_VALUE)
                .cachedInputTokens(Long.MAX_VALUE)
                .build();
        assertThat(gpt4o.costMicros(huge, true)).isEqualTo(Long.MAX_VALUE);
        assertThat(CLAUDE_SONNET_4_5.costMicros(huge, false)).isEqualTo(Long.MAX_VALUE);
        assertThat(gpt4o.worstCaseMicros(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Price.of(0, 0).costMicros(huge, true)).isZero();
    }

    @Test
    void pricesMustBeNumbersAtLeastZero() {
        assertThatThrownBy(() -> Price.of(-1, 1)).hasMessage("input must be a number >= 0, was -1.0");
        assertThatThrownBy(() -> Price.of(1, 1, Double.NaN, 1)).hasMessage("cacheWrite must be a number >= 0, was NaN");
        assertThatThrownBy(() -> Price.of(1, Double.POSITIVE_INFINITY))
                .hasMessage("output must be a number >= 0, was Infinity");
        assertThat(Price.of(1, 2)).isEqualTo(Price.of(1, 1, 1, 2)).hasSameHashCodeAs(Price.of(1, 1, 1, 2));
        assertThat(Price.of(1, 2).cachedInput()).isEqualTo(1);
    }

    // ---- the rules a flat table cannot hold

    private static Price longContext() {
        // gpt-5.4: 2.50 / 0.25 / 15.00, over 272k input tokens 5.00 / 0.50 / 22.50 for the whole request
        return Prices.defaults().priceOf("openai", ProviderKind.OPENAI, "gpt-5.4");
    }

    @Test
    void aPromptOverTheLongContextThresholdIsBilledAtItsPricesWholly() {
        Usage under = Usage.builder().inputTokens(272_000).outputTokens(1_000).build();
        Usage over = Usage.builder().inputTokens(272_001).outputTokens(1_000).build();
        // 272,000 x 2.50 + 1,000 x 15 = 680,000 + 15,000
        assertThat(longContext().costMicros(under, true)).isEqualTo(695_000);
        // 272,001 x 5.00 + 1,000 x 22.50 = 1,360,005 + 22,500: every token, not only those past 272k
        assertThat(longContext().costMicros(over, true)).isEqualTo(1_382_505);
        Usage cachedOver = Usage.builder()
                .inputTokens(300_000)
                .cachedInputTokens(200_000)
                .outputTokens(0)
                .build();
        // the prompt counts its cache reads: 100,000 x 5.00 + 200,000 x 0.50
        assertThat(longContext().costMicros(cachedOver, true)).isEqualTo(600_000);
        // and so does the worst case, from the input estimate
        assertThat(longContext().worstCaseMicros(272_000, 100)).isEqualTo(680_000 + 1_500);
        assertThat(longContext().worstCaseMicros(300_000, 100)).isEqualTo(1_500_000 + 2_250);
        assertThat(longContext().longContextAbove()).isEqualTo(272_000);
    }

    @Test
    void anthropicsPromptForTheLongContextTierIsInputWritesAndReads() {
        // claude-sonnet-4-5 over 200k: 6.00 in, 22.50 out; its cache prices scale as input does
        Usage reads = Usage.builder()
                .inputTokens(1_000)
                .cachedInputTokens(199_500)
                .outputTokens(100)
                .build();
        // 200,500 tokens of prompt: 1,000 x 6.00 + 199,500 x 0.60 + 100 x 22.50
        assertThat(CLAUDE_SONNET_4_5.costMicros(reads, false)).isEqualTo(6_000 + 119_700 + 2_250);
        Usage small = Usage.builder()
                .inputTokens(1_000)
                .cachedInputTokens(10_000)
                .outputTokens(100)
                .build();
        assertThat(CLAUDE_SONNET_4_5.costMicros(small, false)).isEqualTo(3_000 + 3_000 + 1_500);
    }

    @Test
    void oneHourCacheWritesCostTwiceTheInputAndFiveMinuteOnesAQuarterMore() {
        Usage writes = Usage.builder()
                .inputTokens(10_000 + 4_000) // uncached plus every cache write
                .cacheCreationInputTokens(4_000)
                .cacheWrite1hInputTokens(1_000)
                .outputTokens(0)
                .build();
        // 10,000 x 3.00 + 3,000 x 3.75 + 1,000 x 6.00
        assertThat(CLAUDE_SONNET_4_5.costMicros(writes, false)).isEqualTo(30_000 + 11_250 + 6_000);
        assertThat(CLAUDE_SONNET_4_5.cacheWrite1h()).isEqualTo(6.0);
        assertThat(Price.of(1, 1, 1.25, 5).cacheWrite1h())
                .as("a write unless priced apart")
                .isEqualTo(1.25);
    }

    @Test
    void openAiCacheWritesAreInsideInputAndBilledAtTheWritePrice() {
        // gpt-5.6-sol: 5.00 in, 0.50 cached, 6.25 cache write, 30 out
        Price sol = Prices.defaults().priceOf("openai", ProviderKind.OPENAI, "gpt-5.6-sol");
        Usage usage = Usage.builder()
                .inputTokens(10_000)
                .cachedInputTokens(2_000)
                .cacheCreationInputTokens(3_000)
                .outputTokens(100)
                .build();
        // 5,000 x 5.00 + 2,000 x 0.50 + 3,000 x 6.25 + 100 x 30
        assertThat(sol.costMicros(usage, true)).isEqualTo(25_000 + 1_000 + 18_750 + 3_000);
        // before gpt-5.6 a write is billed as input, as before
        assertThat(GPT_4O_MINI.costMicros(usage, true))
                .isEqualTo(GPT_4O_MINI.costMicros(
                        Usage.builder()
                                .inputTokens(10_000)
                                .cachedInputTokens(2_000)
                                .outputTokens(100)
                                .build(),
                        true));
    }

    @Test
    void flexAndBatchRunsAreHalfPriceAndPriorityDouble() {
        Usage usage = Usage.builder().inputTokens(10_000).outputTokens(1_000).build();
        long standard = longContext().costMicros(usage, true);
        assertThat(standard).isEqualTo(25_000 + 15_000);
        assertThat(longContext().costMicros(usage, true, ServiceTier.FLEX)).isEqualTo(standard / 2);
        assertThat(longContext().costMicros(usage, true, ServiceTier.BATCH)).isEqualTo(standard / 2);
        assertThat(longContext().costMicros(usage, true, ServiceTier.PRIORITY)).isEqualTo(standard * 2);
        assertThat(longContext().worstCaseMicros(10_000, 1_000, ServiceTier.PRIORITY))
                .isEqualTo(standard * 2);
        // the tier the answer reports wins over the one the request asked for
        Usage servedAtPriority = Usage.builder()
                .inputTokens(10_000)
                .outputTokens(1_000)
                .serviceTier("priority")
                .build();
        assertThat(longContext().costMicros(servedAtPriority, true, ServiceTier.FLEX))
                .isEqualTo(standard * 2);
        Usage servedStandard = Usage.builder()
                .inputTokens(10_000)
                .outputTokens(1_000)
                .serviceTier("standard")
                .build();
        assertThat(longContext().costMicros(servedStandard, true, ServiceTier.PRIORITY))
                .isEqualTo(standard);
        // a long prompt in a cheap tier: both rules
        Usage longFlex = Usage.builder().inputTokens(300_000).outputTokens(0).build();
        assertThat(longContext().costMicros(longFlex, true, ServiceTier.FLEX)).isEqualTo(750_000);
    }

    @Test
    void aPriceWithoutTierFactorsBillsEveryTierAsStandard() {
        Price plain = Price.of(2, 8);
        Usage usage = Usage.builder().inputTokens(1_000).outputTokens(100).build();
        assertThat(plain.costMicros(usage, true, ServiceTier.PRIORITY)).isEqualTo(2_800);
        assertThat(plain.factor(ServiceTier.FLEX)).isEqualTo(1.0);
        assertThat(ServiceTier.of("auto")).isEqualTo(ServiceTier.STANDARD);
        assertThat(ServiceTier.of("default")).isEqualTo(ServiceTier.STANDARD);
        assertThat(ServiceTier.of("scale")).isEqualTo(ServiceTier.STANDARD);
        assertThat(ServiceTier.of(null)).isEqualTo(ServiceTier.STANDARD);
        assertThat(ServiceTier.of("Flex")).isEqualTo(ServiceTier.FLEX);
    }

    @Test
    void aLongContextTierWithoutCachePricesScalesTheEntrysOwn() {
        PriceConfig c = PriceConfig.builder()
                .model("m")
                .input(1.25)
                .cachedInput(0.125)
                .output(10)
                .longContext(PriceConfig.LongContext.builder()
                        .above(200_000)
                        .input(2.50)
                        .output(15)
                        .build())
                .build();
        Usage reads = Usage.builder()
                .inputTokens(300_000)
                .cachedInputTokens(100_000)
                .outputTokens(0)
                .build();
        // 200,000 x 2.50 + 100,000 x 0.25 (0.125 scaled as input doubles)
        assertThat(Price.of(c).costMicros(reads, true)).isEqualTo(500_000 + 25_000);
    }
}
