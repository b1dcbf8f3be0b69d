package dev.sluice.core.provider.gemini;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.feed;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.resource;
import static dev.sluice.core.provider.ProviderFixtures.sameUsageAtEveryCut;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.retry.OutcomeClass;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class GeminiUsageTest {

    static final Headers SSE = headers("content-type", "text/event-stream");
    static final Headers JSON = headers("content-type", "application/json; charset=UTF-8");
    static final RequestFacts FACTS = RequestFacts.builder("gemini")
            .operation("streamGenerateContent")
            .model("gemini-2.5-flash")
            .streaming(true)
            .estimatedInputTokens(1100)
            .maxOutputTokens(2048)
            .build();

    final GeminiAdapter adapter = new GeminiAdapter(() -> 0L);

    UsageParser parser(Headers headers) {
        return adapter.usageParser(FACTS, headers, ESTIMATOR);
    }

    @Test
    void aResponseCountsPromptAndToolPromptAsInputAndCandidatesPlusThoughtsAsOutput() {
        Usage u = feed(parser(JSON), resource("/gemini/response.json")).usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(87 + 12);
        assertThat(u.outputTokens()).isEqualTo(17 + 184);
        assertThat(u.reasoningTokens()).isEqualTo(184);
        assertThat(u.totalTokens()).as("agrees with totalTokenCount").isEqualTo(300);
    }

    @Test
    void anSseStreamTakesTheLastUsageMetadataWhole() {
        Usage u = sameUsageAtEveryCut(() -> parser(SSE), resource("/gemini/stream.sse"));
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens())
                .as("promptTokenCount includes the cached tokens")
                .isEqualTo(1208);
        assertThat(u.cachedInputTokens()).isEqualTo(1024);
        assertThat(u.outputTokens()).isEqualTo(23 + 953);
        assertThat(u.reasoningTokens()).isEqualTo(953);
    }

    @Test
    void theJsonArrayStreamReadsTheSame() {
        Usage sse = feed(parser(SSE), resource("/gemini/stream.sse")).usage();
        Usage array = sameUsageAtEveryCut(() -> parser(JSON), resource("/gemini/stream-array.json"));
        assertThat(array.toString()).isEqualTo(sse.toString());
    }

    @Test
    void withoutAContentTypeTheFirstByteDecides() {
        Usage sse = feed(parser(SSE), resource("/gemini/stream.sse")).usage();
        assertThat(sameUsageAtEveryCut(() -> parser(Headers.empty()), resource("/gemini/stream.sse"))
                        .toString())
                .isEqualTo(sse.toString());
        assertThat(sameUsageAtEveryCut(() -> parser(Headers.empty()), resource("/gemini/stream-array.json"))
                        .toString())
                .isEqualTo(sse.toString());
        assertThat(feed(parser(Headers.empty()), utf8("\r\n  ")).usage().inputTokens())
                .isEqualTo(1100);
    }

    @Test
    void aLaterReportWithoutAFieldMeansZeroNotAsBefore() {
        String body =
                "data: {\"usageMetadata\":{\"promptTokenCount\":10,\"candidatesTokenCount\":5,\"thoughtsTokenCount\":7}}\n\n"
                        + "data: {\"candidates\":[{\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":10,"
                        + "\"candidatesTokenCount\":6}}\n\n";
        Usage u = feed(parser(SSE), utf8(body)).usage();
        assertThat(u.outputTokens()).isEqualTo(6);
        assertThat(u.reasoningTokens()).isZero();
    }

    @Test
    void aBrokenStreamSettlesWithTheReportedPromptAndTheTextItSaw() {
        byte[] body = resource("/gemini/stream.sse");
        String text = new String(body, StandardCharsets.UTF_8);
        int end = text.indexOf("data:", text.indexOf("data:", 1) + 1); // before the last chunk
        Usage u = feed(parser(SSE), Arrays.copyOf(body, text.substring(0, end).getBytes(StandardCharsets.UTF_8).length))
                .usage();
        assertThat(u.reportedByProvider())
                .as("no finishReason: the report is not final")
                .isFalse();
        assertThat(u.inputTokens()).isEqualTo(1208);
        long counted = ESTIMATOR.tokensForText(
                null, "Les trois couleurs".length() + " du drapeau français sont le bleu, le blanc".length());
        assertThat(u.outputTokens()).isEqualTo(Math.max(14 + 953, counted));

        Usage none = feed(parser(SSE), new byte[0]).usage();
        assertThat(none.reportedByProvider()).isFalse();
        assertThat(none.inputTokens()).isEqualTo(1100);
        assertThat(none.outputTokens()).isZero();
    }

    @Test
    void aMidStreamUnavailableIsATransientStreamError() {
        byte[] body = resource("/gemini/stream-unavailable.sse");
        UsageParser p = feed(parser(SSE), body);
        ProviderError e = p.streamError();
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(e.type()).isEqualTo("UNAVAILABLE");
        assertThat(e.code()).isEqualTo("503");
        assertThat(e.message()).startsWith("The model is overloaded");
        sameUsageAtEveryCut(() -> parser(SSE), body);
        assertThat(feed(parser(SSE), resource("/gemini/stream.sse")).streamError())
                .isNull();

        ProviderError exhausted = feed(
                        parser(JSON),
                        utf8("[{\"candidates\":[]},{\"error\":{\"code\":429,"
                                + "\"message\":\"Please retry in 3s.\",\"status\":\"RESOURCE_EXHAUSTED\"}}]"))
                .streamError();
        assertThat(exhausted.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(exhausted.retryAfterMillis()).isEqualTo(3000);
        assertThat(feed(parser(SSE), utf8("data: {\"error\":{\"status\":\"INVALID_ARGUMENT\"}}\n\n"))
                        .streamError()
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
    }

    @Test
    void anAnswerWithoutUsageIsCountedFromItsText() {
        Usage u = feed(
                        parser(JSON),
                        utf8("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"abcdefgh\"},"
                                + "{\"functionCall\":{\"name\":\"f\"}}]}}]}"))
                .usage();
        assertThat(u.reportedByProvider()).isFalse();
        assertThat(u.inputTokens()).isEqualTo(1100);
        assertThat(u.outputTokens()).isEqualTo(ESTIMATOR.tokensForText(null, 8 + "{\"name\":\"f\"}".length()));
    }

    @Test
    void aHugeAnswerIsCountedBySizeCappedByTheMaximum() {
        UsageParser p = GeminiJsonAnswer.parser(FACTS, ESTIMATOR, 0, 1024, -1);
        byte[] big = new byte[1 << 20];
        Arrays.fill(big, (byte) 'a');
        feed(p, big);
        assertThat(p.usage().reportedByProvider()).isFalse();
        assertThat(p.usage().outputTokens()).isEqualTo(2048);
    }

    @Test
    void garbageNeverThrows() {
        Random random = new Random(23);
        for (int i = 0; i < 300; i++) {
            byte[] junk = new byte[random.nextInt(2000)];
            random.nextBytes(junk);
            for (Headers h : new Headers[] {SSE, JSON, Headers.empty()}) {
                UsageParser p = feed(parser(h), junk, junk.length / 3);
                assertThat(p.usage()).isNotNull();
                p.streamError();
            }
        }
        byte[] stream = resource("/gemini/stream.sse");
        for (int i = 0; i < 300; i++) {
            byte[] damaged = stream.clone();
            for (int j = 0; j < 5; j++) {
                damaged[random.nextInt(damaged.length)] = (byte) random.nextInt(256);
            }
            assertThat(feed(parser(SSE), damaged).usage().outputTokens()).isGreaterThanOrEqualTo(0);
        }
        UsageParser p = adapter.usageParser(null, null, null);
        p.accept(null, 0, 10);
        p.accept(new byte[3], 2, 5);
        p.finish();
        assertThat(p.usage()).isNotNull();
    }
}
