package dev.sluice.core.provider;

import static dev.sluice.core.provider.ParserInputs.ADAPTERS;
import static dev.sluice.core.provider.ParserInputs.NOW;
import static dev.sluice.core.provider.RateLimitSnapshot.UNKNOWN;
import static dev.sluice.core.testing.PropertyRun.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.RateLimitSnapshot.Budget;
import dev.sluice.core.provider.wire.HeaderNumbers;
import dev.sluice.core.retry.WaitHints;
import dev.sluice.core.testing.Gen;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every adapter's budget headers, read from valid, odd and broken values: nothing throws, and
 * whatever reaches the governor is sane (a limit positive or unknown, remaining within the limit,
 * reset and window non-negative and bounded). Valid headers read exactly.
 */
class RateLimitHeadersPropertiesTest {

    static final List<String> NAMES = List.of(
            "x-ratelimit-limit-requests",
            "x-ratelimit-limit-tokens",
            "x-ratelimit-remaining-requests",
            "x-ratelimit-remaining-tokens",
            "x-ratelimit-reset-requests",
            "x-ratelimit-reset-tokens",
            "anthropic-ratelimit-requests-limit",
            "anthropic-ratelimit-requests-remaining",
            "anthropic-ratelimit-requests-reset",
            "anthropic-ratelimit-input-tokens-limit",
            "anthropic-ratelimit-input-tokens-remaining",
            "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-output-tokens-limit",
            "anthropic-ratelimit-output-tokens-remaining",
            "anthropic-ratelimit-output-tokens-reset",
            "anthropic-ratelimit-tokens-limit",
            "anthropic-ratelimit-tokens-remaining",
            "anthropic-ratelimit-tokens-reset",
            "x-ratelimitbysize-limit-minute",
            "x-ratelimitbysize-remaining-minute",
            "x-ratelimitbysize-limit-month",
            "x-ratelimitbysize-remaining-month",
            "ratelimitbysize-limit",
            "ratelimitbysize-remaining",
            "ratelimitbysize-reset",
            "retry-after",
            "retry-after-ms",
            "content-type");

    /** The longest window any adapter announces: Mistral's month. */
    static final long MAX_WINDOW_MILLIS = 31L * 24 * 3_600_000;

    static final Gen<Headers> ANY_BUDGET_HEADERS = ParserInputs.headers(
            NAMES,
            name -> name.startsWith("anthropic-") && name.endsWith("-reset")
                    ? 2
                    : name.contains("reset") || name.startsWith("retry-after") ? 1 : 0,
            List.of(ParserInputs.countText(), ParserInputs.durationText(), ParserInputs.rfc3339()));

    static final Gen<Long> NOWS = Gen.<Long>weighted(8, Gen.just(NOW)).or(1, Gen.longs(0, 4_102_444_800_000L));

    @Test
    void everyAdapterReadsAnyHeadersIntoSaneBudgets() {
        forAll(1000, trial -> {
            Headers headers = trial.draw("headers", ANY_BUDGET_HEADERS, Headers::asMap);
            long now = trial.draw("now", NOWS);
            for (ProviderAdapter adapter : ADAPTERS) {
                RateLimitSnapshot snapshot = adapter.readRateLimits(headers, now);
                assertThat(snapshot).as(adapter.kind()).isNotNull();
                for (Budget b : snapshot.budgets()) {
                    assertSane(adapter.kind(), b);
                }
            }
        });
    }

    static void assertSane(String kind, Budget b) {
        String what = kind + " " + b;
        assertThat(b.name()).as(what).isNotNull();
        assertThat(b.dimension()).as(what).isNotNull();
        assertThat(b.limit() == UNKNOWN && b.remaining() == UNKNOWN)
                .as(what + ": says nothing")
                .isFalse();
        if (b.limit() != UNKNOWN) {
            assertThat(b.limit()).as(what + ": limit").isBetween(1L, HeaderNumbers.MAX_COUNT);
        }
        if (b.remaining() != UNKNOWN) {
            assertThat(b.remaining())
                    .as(what + ": remaining")
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

    /** A limit and a remaining figure within it; now and then the budget is full. */
    static final Gen<long[]> LIMIT_AND_REMAINING = limitAndRemaining();

    private static Gen<long[]> limitAndRemaining() {
        Gen<Long> limits = Gen.longs(1, 2_000_000_000L);
        Gen<Long> remainings = Gen.longs(0, 2_000_000_000L);
        return random -> {
            long limit = limits.next(random);
            long r = remainings.next(random);
            return new long[] {limit, random.nextBoolean() ? limit : r % (limit + 1)};
        };
    }

    static final Gen<ParserInputs.Duration> VALID_DURATIONS = ParserInputs.goDuration();

    @Test
    void openAiStyleHeadersReadExactly() {
        forAll(300, trial -> {
            long[] requests = trial.draw("requests", LIMIT_AND_REMAINING);
            long[] tokens = trial.draw("tokens", LIMIT_AND_REMAINING);
            ParserInputs.Duration requestsReset = trial.draw("requestsReset", VALID_DURATIONS);
            ParserInputs.Duration tokensReset = trial.draw("tokensReset", VALID_DURATIONS);
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
                        assertThat(budgets)
                                .as(adapter.kind() + " reads no OpenAI headers")
                                .isEmpty();
                }
            }
        });
    }

    private static void assertBudget(Budget b, Dimension dimension, long[] limitRemaining, long resetMillis) {
        assertThat(b.dimension()).isEqualTo(dimension);
        assertThat(b.limit()).isEqualTo(limitRemaining[0]);
        assertThat(b.remaining()).isEqualTo(limitRemaining[1]);
        assertThat(b.resetAfterMillis()).as(b.toString()).isEqualTo(resetMillis);
    }

    static final Gen<Long> RESETS = Gen.oneOf(Gen.longs(-86_400_000L, 120_000L), Gen.longs(-NOW, 400L * 86_400_000L));

    @Test
    void anthropicHeadersReadExactly() {
        forAll(300, trial -> {
            long[] input = trial.draw("input", LIMIT_AND_REMAINING);
            long[] output = trial.draw("output", LIMIT_AND_REMAINING);
            long[] requests = trial.draw("requests", LIMIT_AND_REMAINING);
            long resetInMillis = trial.draw("resetInMillis", RESETS);
            String reset = Instant.ofEpochMilli(NOW + resetInMillis)
                    .atOffset(ZoneOffset.UTC)
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
            List<Budget> budgets = ADAPTERS.get(ProviderAdapters.KINDS.indexOf("anthropic"))
                    .readRateLimits(h, NOW)
                    .budgets();
            assertThat(budgets)
                    .extracting(Budget::dimension)
                    .containsExactly(Dimension.REQUESTS, Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS);
            long expectedReset = Math.max(0, Math.min(resetInMillis, WaitHints.MAX_MILLIS));
            assertThat(budgets.get(0).remaining()).isEqualTo(requests[1]);
            assertThat(budgets.get(1).remaining()).isEqualTo(bottomOfBand(input));
            assertThat(budgets.get(2).remaining()).isEqualTo(bottomOfBand(output));
            for (Budget b : budgets) {
                assertThat(b.resetAfterMillis()).as(b.toString()).isEqualTo(expectedReset);
            }
            assertThat(budgets.get(1).limit()).isEqualTo(input[0]);
        });
    }

    /** Token remaining figures a multiple of 1000 are rounded: the true one may be up to 500 less. */
    private static long bottomOfBand(long[] limitRemaining) {
        long remaining = limitRemaining[1];
        return remaining > 0 && remaining % 1000 == 0 ? remaining - 500 : remaining;
    }

    @Test
    void mistralBudgetsReadExactly() {
        Gen<Long> resetSeconds = Gen.longs(0, 100_000);
        forAll(200, trial -> {
            long[] minute = trial.draw("minute", LIMIT_AND_REMAINING);
            long[] month = trial.draw("month", LIMIT_AND_REMAINING);
            long reset = trial.draw("resetSeconds", resetSeconds);
            Headers h = ParserInputs.headersOf(
                    "x-ratelimitbysize-limit-minute", String.valueOf(minute[0]),
                    "x-ratelimitbysize-remaining-minute", String.valueOf(minute[1]),
                    "x-ratelimitbysize-limit-month", String.valueOf(month[0]),
                    "x-ratelimitbysize-remaining-month", String.valueOf(month[1]),
                    "ratelimitbysize-reset", String.valueOf(reset));
            List<Budget> budgets = ADAPTERS.get(ProviderAdapters.KINDS.indexOf("openai-compatible"))
                    .readRateLimits(h, NOW)
                    .budgets();
            assertThat(budgets).hasSize(2);
            assertThat(budgets.get(0).limit()).isEqualTo(minute[0]);
            assertThat(budgets.get(0).remaining()).isEqualTo(minute[1]);
            assertThat(budgets.get(0).resetAfterMillis()).isEqualTo(reset * 1000);
            assertThat(budgets.get(1).limit()).isEqualTo(month[0]);
            assertThat(budgets.get(1).remaining()).isEqualTo(month[1]);
        });
    }

    @Test
    void providersWithoutBudgetHeadersAnnounceNone() {
        forAll(100, trial -> {
            Headers headers = trial.draw("headers", ANY_BUDGET_HEADERS, Headers::asMap);
            for (String kind : List.of("gemini", "vertex-ai", "fixed-window-gateway")) {
                assertThat(ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind))
                                .readRateLimits(headers, NOW)
                                .isEmpty())
                        .as(kind)
                        .isTrue();
            }
        });
    }

    // ------------------------------------------------------------ regressions the properties found

    static ProviderAdapter adapter(String kind) {
        return ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind));
    }

    /** {@code x-ratelimit-limit-requests: 0} reached the governor as a limit of 0. */
    @Test
    void aLimitOfZeroIsUnknown() {
        List<Budget> budgets = adapter("openai")
                .readRateLimits(
                        ParserInputs.headersOf(
                                "x-ratelimit-limit-requests", "0", "x-ratelimit-remaining-requests", "0"),
                        NOW)
                .budgets();
        assertThat(budgets).hasSize(1);
        assertThat(budgets.get(0).limit()).isEqualTo(UNKNOWN);
        assertThat(budgets.get(0).remaining()).isZero();
        assertThat(adapter("openai")
                        .readRateLimits(ParserInputs.headersOf("x-ratelimit-limit-requests", "0"), NOW)
                        .isEmpty())
                .as("a budget that says nothing is left out")
                .isTrue();
    }

    /** A remaining figure above the limit passed as it was. */
    @Test
    void remainingAboveTheLimitIsTheLimit() {
        Budget b = adapter("azure-openai")
                .readRateLimits(
                        ParserInputs.headersOf(
                                "x-ratelimit-limit-tokens", "100", "x-ratelimit-remaining-tokens", "250"),
                        NOW)
                .budgets()
                .get(0);
        assertThat(b.limit()).isEqualTo(100);
        assertThat(b.remaining()).isEqualTo(100);
    }

    /** {@code 99999999999999999999} became a limit of Long.MAX_VALUE. */
    @Test
    void countsBeyondAnyProvidersAreUnknown() {
        Budget b = adapter("openai-compatible")
                .readRateLimits(
                        ParserInputs.headersOf(
                                "x-ratelimitbysize-limit-minute",
                                "99999999999999999999",
                                "x-ratelimitbysize-remaining-minute",
                                "5"),
                        NOW)
                .budgets()
                .get(0);
        assertThat(b.limit()).isEqualTo(UNKNOWN);
        assertThat(b.remaining()).isEqualTo(5);
    }
}
