package dev.sluice.core.provider.anthropic;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.feed;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.resource;
import static dev.sluice.core.provider.ProviderFixtures.sameUsageAtEveryCut;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.JsonBodyUsage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.retry.OutcomeClass;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AnthropicUsageTest {

    static final Headers SSE = headers("content-type", "text/event-stream; charset=utf-8");
    static final Headers JSON = headers("content-type", "application/json");
    static final RequestFacts FACTS = RequestFacts.builder("anthropic")
            .operation("messages")
            .model("claude-sonnet-4-5")
            .streaming(true)
            .estimatedInputTokens(3000)
            .maxOutputTokens(1024)
            .build();

    final AnthropicAdapter adapter = new AnthropicAdapter(() -> 0L);

    UsageParser parser(Headers headers) {
        return adapter.usageParser(FACTS, headers, ESTIMATOR);
    }

    @Test
    void usageAtTheEndOfAMessageIsReadWithoutWalkingTheContentBeforeIt() {
        // the content cannot be walked (a stray byte after it): only the end is read
        String body = "{\"content\":[{\"type\":\"text\",\"text\":\"abcdefgh\"}] x,\"stop_reason\":\"end_turn\","
                + "\"usage\":{\"input_tokens\":31,\"output_tokens\":9,\"cache_creation\":{\"ephemeral_5m_input_tokens\":0}}}";
        Usage u = feed(parser(JSON), utf8(body)).usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(31);
        assertThat(u.outputTokens()).isEqualTo(9);
    }

    @Test
    void aMessageCountsUncachedInputPlusCacheWritesTowardInputAndCacheReadsApart() {
        Usage u = feed(parser(JSON), resource("/anthropic/message.json")).usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens())
                .as("input_tokens + cache_creation_input_tokens")
                .isEqualTo(2095 + 1200);
        assertThat(u.cacheCreationInputTokens()).isEqualTo(1200);
        assertThat(u.cachedInputTokens())
                .as("cache reads do not count toward input TPM")
                .isEqualTo(8400);
        assertThat(u.outputTokens()).isEqualTo(503);
    }

    @Test
    void oneHourCacheWritesAndTheServiceTierAreReadWhetherOrNotTheUsageIsWalked() {
        String usage = "\"usage\":{\"input_tokens\":100,\"cache_creation_input_tokens\":1200,"
                + "\"cache_read_input_tokens\":50,\"cache_creation\":{\"ephemeral_5m_input_tokens\":800,"
                + "\"ephemeral_1h_input_tokens\":400},\"output_tokens\":20,\"service_tier\":\"priority\"";
        Usage read = feed(parser(JSON), utf8("{\"content\":[]," + usage + "}}")).usage();
        // a count written as a float is declined by the plain read: the usage is walked
        Usage walked = feed(parser(JSON), utf8("{\"content\":[]," + usage + ",\"x\":1.5}}"))
                .usage();
        for (Usage u : new Usage[] {read, walked}) {
            assertThat(u.inputTokens()).isEqualTo(100 + 1200);
            assertThat(u.cacheCreationInputTokens()).isEqualTo(1200);
            assertThat(u.cacheWrite1hInputTokens()).isEqualTo(400);
            assertThat(u.serviceTier()).isEqualTo("priority");
        }
        assertThat(feed(parser(JSON), resource("/anthropic/message.json"))
                        .usage()
                        .serviceTier())
                .isEqualTo("standard");
        Usage noTier = feed(parser(JSON), utf8("{\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}"))
                .usage();
        assertThat(noTier.serviceTier()).isNull();
        assertThat(noTier.cacheWrite1hInputTokens()).isZero();
    }

    @Test
    void aStreamReportsItsOneHourWritesAndTierInMessageStart() {
        String stream = "event: message_start\n"
                + "data: {\"type\":\"message_start\",\"message\":{\"content\":[],\"usage\":{\"input_tokens\":10,"
                + "\"cache_creation_input_tokens\":300,\"cache_creation\":{\"ephemeral_5m_input_tokens\":0,"
                + "\"ephemeral_1h_input_tokens\":300},\"output_tokens\":1,\"service_tier\":\"batch\"}}}\n\n"
                + "event: message_delta\n"
                + "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                + "\"usage\":{\"output_tokens\":42}}\n\n";
        Usage u = sameUsageAtEveryCut(() -> parser(SSE), utf8(stream));
        assertThat(u.inputTokens()).isEqualTo(310);
        assertThat(u.cacheWrite1hInputTokens()).isEqualTo(300);
        assertThat(u.serviceTier()).isEqualTo("batch");
        assertThat(u.outputTokens()).isEqualTo(42);
    }

    @Test
    void aStreamTakesTheInputSideFromMessageStartAndTheLastCumulativeOutput() {
        Usage u = sameUsageAtEveryCut(() -> parser(SSE), resource("/anthropic/stream.sse"));
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(472 + 2048);
        assertThat(u.cachedInputTokens()).isEqualTo(12288);
        assertThat(u.outputTokens()).isEqualTo(89);

        Usage crlf = sameUsageAtEveryCut(() -> parser(SSE), resource("/anthropic/stream-thinking-crlf.sse"));
        assertThat(crlf.inputTokens()).isEqualTo(12);
        assertThat(crlf.outputTokens())
                .as("message_delta counts are cumulative: the last wins")
                .isEqualTo(16);
    }

    @Test
    void aMidStreamOverloadIsATransientStreamErrorAndOutputIsCounted() {
        byte[] body = resource("/anthropic/stream-overloaded.sse");
        UsageParser p = feed(parser(SSE), body);
        ProviderError e = p.streamError();
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(e.type()).isEqualTo("overloaded_error");
        assertThat(e.message()).isEqualTo("Overloaded");
        Usage u = p.usage();
        assertThat(u.reportedByProvider()).as("the report never completed").isFalse();
        assertThat(u.inputTokens()).as("but message_start did report the input").isEqualTo(1830);
        long text = "The three most important factors in choosing a database are consistency".length();
        assertThat(u.outputTokens()).isEqualTo(ESTIMATOR.tokensForText(null, text));
        sameUsageAtEveryCut(() -> parser(SSE), body);
    }

    @Test
    void otherStreamErrorsAreClassifiedByType() {
        String rate = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                + "\"message\":\"... of 8,000 output tokens per minute.\"}}\n\n";
        ProviderError e = feed(parser(SSE), utf8(rate)).streamError();
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.limiter()).isEqualTo(Dimension.OUTPUT_TOKENS);
        assertThat(feed(
                                parser(SSE),
                                utf8("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                                        + "\"invalid_request_error\",\"message\":\"bad\"}}\n\n"))
                        .streamError()
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(feed(
                                parser(SSE),
                                utf8("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                                        + "\"api_error\",\"message\":\"Internal server error\"}}\n\n"))
                        .streamError()
                        .outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(feed(parser(SSE), resource("/anthropic/stream.sse")).streamError())
                .isNull();
    }

    @Test
    void aStreamThatBreaksBeforeMessageDeltaKeepsWhatItSaw() {
        byte[] body = resource("/anthropic/stream.sse");
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        int cut = text.indexOf("event: message_delta");
        Usage u = feed(
                        parser(SSE),
                        Arrays.copyOf(
                                body, text.substring(0, cut).getBytes(java.nio.charset.StandardCharsets.UTF_8).length))
                .usage();
        assertThat(u.reportedByProvider()).isFalse();
        assertThat(u.inputTokens()).isEqualTo(472 + 2048);
        long counted = "Bonjour ! Voici la météo".length()
                + " à Paris ☀️:".length()
                + "{\"location\": \"Par".length()
                + "is, FR\"}".length();
        assertThat(u.outputTokens()).isEqualTo(ESTIMATOR.tokensForText(null, counted));

        Usage nothing = feed(parser(SSE), new byte[0]).usage();
        assertThat(nothing.reportedByProvider()).isFalse();
        assertThat(nothing.inputTokens()).isEqualTo(3000);
        assertThat(nothing.outputTokens()).isZero();
    }

    @Test
    void aMessageWithoutUsageIsCountedFromItsContent() {
        Usage u = feed(
                        parser(JSON),
                        utf8("{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"abcdefgh\"},"
                                + "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{\"a\":1}}]}"))
                .usage();
        assertThat(u.reportedByProvider()).isFalse();
        assertThat(u.inputTokens()).isEqualTo(3000);
        assertThat(u.outputTokens()).isEqualTo(ESTIMATOR.tokensForText(null, 8 + "{\"a\":1}".length()));
    }

    @Test
    void theContentTypeDecidesAndTheRequestWhenThereIsNone() {
        assertThat(adapter.usageParser(FACTS, Headers.empty(), ESTIMATOR)).isInstanceOf(AnthropicStreamUsage.class);
        assertThat(adapter.usageParser(FACTS, JSON, ESTIMATOR)).isInstanceOf(JsonBodyUsage.class);
        assertThat(adapter.usageParser(null, null, null)).isInstanceOf(JsonBodyUsage.class);
    }

    @Test
    void aHugeAnswerIsCountedBySizeCappedByMaxTokens() {
        UsageParser p = AnthropicJsonAnswer.parser(FACTS, ESTIMATOR, 1024, -1);
        byte[] big = new byte[1 << 20];
        Arrays.fill(big, (byte) 'a');
        feed(p, big);
        assertThat(p.usage().reportedByProvider()).isFalse();
        assertThat(p.usage().outputTokens()).isEqualTo(1024);
    }

    @Test
    void garbageNeverThrows() {
        Random random = new Random(17);
        for (int i = 0; i < 300; i++) {
            byte[] junk = new byte[random.nextInt(2000)];
            random.nextBytes(junk);
            for (Headers h : new Headers[] {SSE, JSON}) {
                UsageParser p = feed(parser(h), junk, junk.length / 3);
                assertThat(p.usage()).isNotNull();
            }
        }
        byte[] stream = resource("/anthropic/stream.sse");
        for (int i = 0; i < 300; i++) {
            byte[] damaged = stream.clone();
            for (int j = 0; j < 5; j++) {
                damaged[random.nextInt(damaged.length)] = (byte) random.nextInt(256);
            }
            UsageParser p = feed(parser(SSE), damaged);
            assertThat(p.usage().outputTokens()).isGreaterThanOrEqualTo(0);
        }
        UsageParser p = parser(SSE);
        p.accept(null, 0, 10);
        p.accept(new byte[3], 2, 5);
        p.finish();
        p.finish();
        assertThat(p.usage()).isNotNull();
    }
}
