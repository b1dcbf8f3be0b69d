package dev.sluice.core.provider;

import static dev.sluice.core.provider.ParserInputs.ADAPTERS;
import static dev.sluice.core.provider.ParserInputs.NOW;
import static dev.sluice.core.provider.RateLimitSnapshot.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.RateLimitSnapshot.Budget;
import dev.sluice.core.provider.wire.HeaderNumbers;
import dev.sluice.core.retry.WaitHints;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Every adapter's budget headers, read from valid, odd and broken values: nothing throws, and
 * whatever reaches the governor is sane (a limit positive or unknown, remaining within the limit,
 * reset and window non-negative and bounded). Valid headers read exactly.
 */
class RateLimitHeadersPropertiesTest {

    static final List<String> NAMES = List.of(
            "x-ratelimit-limit-requests", "x-ratelimit-limit-tokens", "x-ratelimit-remaining-requests",
            "x-ratelimit-remaining-tokens", "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens",
            "anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining",
            "anthropic-ratelimit-requests-reset", "anthropic-ratelimit-input-tokens-limit",
            "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-output-tokens-limit", "anthropic-ratelimit-output-tokens-remaining",
            "anthropic-ratelimit-output-tokens-reset", "anthropic-ratelimit-tokens-limit",
            "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset",
            "x-ratelimitbysize-limit-minute", "x-ratelimitbysize-remaining-minute", "x-ratelimitbysize-limit-month",
            "x-ratelimitbysize-remaining-month", "ratelimitbysize-limit", "ratelimitbysize-remaining",
            "ratelimitbysize-reset", "retry-after", "retry-after-ms", "content-type");

    /** The longest window any adapter announces: Mistral's month. */
    static final long MAX_WINDOW_MILLIS = 31L * 24 * 3_600_000;

    @Provide
    Arbitrary<Headers> anyBudgetHeaders() {
        return ParserInputs.headers(NAMES, name -> name.startsWith("anthropic-") && name.endsWith("-reset") ? 2
                : name.contains("reset") || name.startsWith("retry-after") ? 1 : 0,
                List.of(ParserInputs.countText(), ParserInputs.durationText(), ParserInputs.rfc3339()));
    }

    @Property(tries = 1000)
    void everyAdapterReadsAnyHeadersIntoSaneBudgets(@ForAll("anyBudgetHeaders") Headers headers,
            @ForAll("nows") long now) {
        for (ProviderAdapter adapter : ADAPTERS) {
            RateLimitSnapshot snapshot = adapter.readRateLimits(headers, now);
            assertThat(snapshot).as(adapter.kind()).isNotNull();
            for (Budget b : snapshot.budgets()) {
                assertSane(adapter.kind(), b);
            }
        }
    }

    @Provide
    Arbitrary<Long> nows() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.just(NOW)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(0, 4_102_444_800_000L)));
    }

    static void assertSane(String kind, Budget b) {
        String what = kind + " " + b;
        assertThat(b.name()).as(what).isNotNull();
        assertThat(b.dimension()).as(what).isNotNull();
        assertThat(b.limit() == UNKNOWN && b.remaining() == UNKNOWN).as(what + ": says nothing").isFalse();
        if (b.limit() != UNKNOWN) {
            assertThat(b.limit()).as(what + ": limit").isBetween(1L, HeaderNumbers.MAX_COUNT);
        }
        if (b.remaining() != UNKNOWN) {
            assertThat(b.remaining()).as(what + ": remaining")
                    .isBetween(0L, b.limit() != UNKNOWN ? b.limit() : HeaderNumbers.MAX_COUNT);
        }
        if (b.resetAfterMillis() != UNKNOWN) {
            assertThat(b.resetAfterMillis()).as(what + ": reset").isBetween(0L, WaitHints.MAX_MILLIS);
        }
        if (b.windowMillis() != UNKNOWN) {
            assertThat(b.windowMillis()).as(what + ": window").isBetween(1L, MAX_WINDOW_MILLIS);
        }
    }

    // ------------------------------------------------------------ valid headers read exactly

    @Provide
    Arbitrary<long[]> limitAndRemaining() {
        return Combinators.combine(Arbitraries.longs().between(1, 2_000_000_000L),
                Arbitraries.longs().between(0, 2_000_000_000L), Arbitraries.of(false, true))
                .as((limit, r, full) -> new long[] {limit, full ? limit : r % (limit + 1)});
    }

    @Property(tries = 300)
    void openAiStyleHeadersReadExactly(@ForAll("limitAndRemaining") long[] requests,
            @ForAll("limitAndRemaining") long[] tokens, @ForAll("validDurations") ParserInputs.Duration requestsReset,
            @ForAll("validDurations") ParserInputs.Duration tokensReset) {
        Headers h = ParserInputs.headersOf(
                "x-ratelimit-limit-requests", String.valueOf(requests[0]),
                "x-ratelimit-remaining-requests", String.valueOf(requests[1]),
                "x-ratelimit-reset-requests", requestsReset.text,
                "x-ratelimit-limit-tokens", String.valueOf(tokens[0]),
                "x-ratelimit-remaining-tokens", String.valueOf(tokens[1]),
                "x-ratelimit-reset-tokens", tokensReset.text);
        for (ProviderAdapter adapter : ADAPTERS) {
            List<Budget> budgets = adapter.readRateLimits(h, NOW).budgets();
            switch (adapter.kind()) {
                case "openai":
                case "azure-openai":
                case "openai-compatible":
                    assertThat(budgets).as(adapter.kind()).hasSize(2);
                    assertBudget(budgets.get(0), Dimension.REQUESTS, requests, requestsReset.millis);
                    assertBudget(budgets.get(1), Dimension.TOTAL_TOKENS, tokens, tokensReset.millis);
                    break;
                default:
                    assertThat(budgets).as(adapter.kind() + " reads no OpenAI headers").isEmpty();
            }
        }
    }

    @Provide
    Arbitrary<ParserInputs.Duration> validDurations() {
        return ParserInputs.goDuration();
    }

    private static void assertBudget(Budget b, Dimension dimension, long[] limitRemaining, long resetMillis) {
        assertThat(b.dimension()).isEqualTo(dimension);
        assertThat(b.limit()).isEqualTo(limitRemaining[0]);
        assertThat(b.remaining()).isEqualTo(limitRemaining[1]);
        assertThat(b.resetAfterMillis()).as(b.toString()).isEqualTo(resetMillis);
    }

    @Property(tries = 300)
    void anthropicHeadersReadExactly(@ForAll("limitAndRemaining") long[] input,
            @ForAll("limitAndRemaining") long[] output, @ForAll("limitAndRemaining") long[] requests,
            @ForAll("resets") long resetInMillis) {
        String reset = Instant.ofEpochMilli(NOW + resetInMillis).atOffset(ZoneOffset.UTC)
                .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        Headers h = ParserInputs.headersOf(
                "anthropic-ratelimit-requests-limit", String.valueOf(requests[0]),
                "anthropic-ratelimit-requests-remaining", String.valueOf(requests[1]),
                "anthropic-ratelimit-requests-reset", reset,
                "anthropic-ratelimit-input-tokens-limit", String.valueOf(input[0]),
                "anthropic-ratelimit-input-tokens-remaining", String.valueOf(input[1]),
                "anthropic-ratelimit-input-tokens-reset", reset,
                "anthropic-ratelimit-output-tokens-limit", String.valueOf(output[0]),
                "anthropic-ratelimit-output-tokens-remaining", String.valueOf(output[1]),
                "anthropic-ratelimit-output-tokens-reset", reset,
                "anthropic-ratelimit-tokens-limit", "1",
                "anthropic-ratelimit-tokens-remaining", "1");
        List<Budget> budgets = ADAPTERS.get(ProviderAdapters.KINDS.indexOf("anthropic")).readRateLimits(h, NOW)
                .budgets();
        assertThat(budgets).extracting(Budget::dimension)
                .containsExactly(Dimension.REQUESTS, Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS);
        long expectedReset = Math.max(0, Math.min(resetInMillis, WaitHints.MAX_MILLIS));
        assertThat(budgets.get(0).remaining()).isEqualTo(requests[1]);
        assertThat(budgets.get(1).remaining()).isEqualTo(topOfBand(input));
        assertThat(budgets.get(2).remaining()).isEqualTo(topOfBand(output));
        for (Budget b : budgets) {
            assertThat(b.resetAfterMillis()).as(b.toString()).isEqualTo(expectedReset);
        }
        assertThat(budgets.get(1).limit()).isEqualTo(input[0]);
    }

    /** Token remaining figures a multiple of 1000 are rounded: the true one may be up to 499 more, never above the limit. */
    private static long topOfBand(long[] limitRemaining) {
        long limit = limitRemaining[0];
        long remaining = limitRemaining[1];
        return remaining % 1000 == 0 ? Math.min(remaining + 499, limit) : remaining;
    }

    @Provide
    Arbitrary<Long> resets() {
        return Arbitraries.oneOf(Arbitraries.longs().between(-86_400_000L, 120_000L),
                Arbitraries.longs().between(-NOW, 400L * 86_400_000L));
    }

    @Property(tries = 200)
    void mistralBudgetsReadExactly(@ForAll("limitAndRemaining") long[] minute, @ForAll("limitAndRemaining") long[] month,
            @ForAll @net.jqwik.api.constraints.LongRange(min = 0, max = 100_000) long resetSeconds) {
        Headers h = ParserInputs.headersOf(
                "x-ratelimitbysize-limit-minute", String.valueOf(minute[0]),
                "x-ratelimitbysize-remaining-minute", String.valueOf(minute[1]),
                "x-ratelimitbysize-limit-month", String.valueOf(month[0]),
                "x-ratelimitbysize-remaining-month", String.valueOf(month[1]),
                "ratelimitbysize-reset", String.valueOf(resetSeconds));
        List<Budget> budgets = ADAPTERS.get(ProviderAdapters.KINDS.indexOf("openai-compatible")).readRateLimits(h, NOW)
                .budgets();
        assertThat(budgets).hasSize(2);
        assertThat(budgets.get(0).limit()).isEqualTo(minute[0]);
        assertThat(budgets.get(0).remaining()).isEqualTo(minute[1]);
        assertThat(budgets.get(0).resetAfterMillis()).isEqualTo(resetSeconds * 1000);
        assertThat(budgets.get(1).limit()).isEqualTo(month[0]);
        assertThat(budgets.get(1).remaining()).isEqualTo(month[1]);
    }

    @Property(tries = 100)
    void providersWithoutBudgetHeadersAnnounceNone(@ForAll("anyBudgetHeaders") Headers headers) {
        for (String kind : List.of("gemini", "vertex-ai", "fixed-window-gateway")) {
            assertThat(ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind)).readRateLimits(headers, NOW).isEmpty())
                    .as(kind).isTrue();
        }
    }

    // ------------------------------------------------------------ regressions the properties found

    static ProviderAdapter adapter(String kind) {
        return ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind));
    }

    /** {@code x-ratelimit-limit-requests: 0} reached the governor as a limit of 0. */
    @Test
    void aLimitOfZeroIsUnknown() {
        List<Budget> budgets = adapter("openai").readRateLimits(ParserInputs.headersOf("x-ratelimit-limit-requests", "0",
                "x-ratelimit-remaining-requests", "0"), NOW).budgets();
        assertThat(budgets).hasSize(1);
        assertThat(budgets.get(0).limit()).isEqualTo(UNKNOWN);
        assertThat(budgets.get(0).remaining()).isZero();
        assertThat(adapter("openai").readRateLimits(ParserInputs.headersOf("x-ratelimit-limit-requests", "0"), NOW)
                .isEmpty()).as("a budget that says nothing is left out").isTrue();
    }

    /** A remaining figure above the limit passed as it was. */
    @Test
    void remainingAboveTheLimitIsTheLimit() {
        Budget b = adapter("azure-openai").readRateLimits(ParserInputs.headersOf("x-ratelimit-limit-tokens", "100",
                "x-ratelimit-remaining-tokens", "250"), NOW).budgets().get(0);
        assertThat(b.limit()).isEqualTo(100);
        assertThat(b.remaining()).isEqualTo(100);
    }

    /** {@code 99999999999999999999} became a limit of Long.MAX_VALUE. */
    @Test
    void countsBeyondAnyProvidersAreUnknown() {
        Budget b = adapter("openai-compatible").readRateLimits(ParserInputs.headersOf("x-ratelimitbysize-limit-minute",
                "99999999999999999999", "x-ratelimitbysize-remaining-minute", "5"), NOW).budgets().get(0);
        assertThat(b.limit()).isEqualTo(UNKNOWN);
        assertThat(b.remaining()).isEqualTo(5);
    }
}
