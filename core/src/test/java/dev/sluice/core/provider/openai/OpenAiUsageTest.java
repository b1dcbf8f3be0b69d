package dev.sluice.core.provider.openai;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.feed;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.retry.OutcomeClass;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OpenAiUsageTest {

    static final Headers SSE = headers("content-type", "text/event-stream; charset=utf-8");
    static final Headers JSON = headers("content-type", "application/json");
    static final RequestFacts CHAT = RequestFacts.builder("openai")
            .operation("chat.completions")
            .model("gpt-4o-mini")
            .streaming(true)
            .estimatedInputTokens(20)
            .maxOutputTokens(1000)
            .build();

    final OpenAiAdapter adapter = new OpenAiAdapter(() -> 0L);

    static byte[] fixture(String name) {
        try (InputStream in = OpenAiUsageTest.class.getResourceAsStream("/openai/" + name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    UsageParser parser(RequestFacts facts, Headers headers) {
        return adapter.usageParser(facts, headers, ESTIMATOR);
    }

    @Test
    void chatStreamReportsTheUsageChunkBeforeDone() {
        Usage u = feed(parser(CHAT, SSE), fixture("chat-stream-with-usage.sse")).usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(19);
        assertThat(u.outputTokens()).isEqualTo(10);
        assertThat(u.cachedInputTokens()).isZero();
    }

    @Test
    void chatStreamSplitAtEveryByteGivesTheSameUsage() {
        byte[] body = fixture("chat-stream-with-usage.sse");
        Usage whole = feed(parser(CHAT, SSE), body).usage();
        for (int cut = 0; cut <= body.length; cut++) {
            Usage u = feed(parser(CHAT, SSE), body, cut).usage();
            assertThat(u.toString()).as("cut at %d", cut).isEqualTo(whole.toString());
        }
        UsageParser byteByByte = parser(CHAT, SSE);
        for (int i = 0; i < body.length; i++) {
            byteByByte.accept(body, i, 1);
        }
        byteByByte.finish();
        assertThat(byteByByte.usage().toString()).isEqualTo(whole.toString());
    }

    @Test
    void aStreamWithoutUsageIsCountedFromItsDeltas() {
        // {"location":"Paris"} = 19 characters of tool-call arguments: 5 tokens at 4 a token
        Usage u = feed(parser(CHAT, SSE), fixture("chat-stream-tool-call-no-usage.sse"))
                .usage();
        assertThat(u.reportedByProvider()).isFalse();
        assertThat(u.inputTokens()).isEqualTo(20);
        assertThat(u.outputTokens()).isEqualTo(ESTIMATOR.tokensForText(null, 19));
    }

    @Test
    void aBrokenStreamKeepsWhatWasCounted() {
        byte[] body = fixture("chat-stream-with-usage.sse");
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        int usageChunk = text.indexOf("\"choices\":[]");
        byte[] cut = Arrays.copyOf(
                body, text.substring(0, usageChunk).getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        Usage u = feed(parser(CHAT, SSE), cut).usage();
        assertThat(u.reportedByProvider()).isFalse();
        // "Hello there! How can I help 😊?" is 31 UTF-16 chars
        assertThat(u.outputTokens()).isEqualTo(ESTIMATOR.tokensForText(null, 31));
        assertThat(u.inputTokens()).isEqualTo(20);
    }

    @Test
    void usageIsTheBestKnownAtAnyMoment() {
        UsageParser p = parser(CHAT, SSE);
        assertThat(p.usage().outputTokens()).isZero();
        byte[] body = fixture("chat-stream-with-usage.sse");
        p.accept(body, 0, body.length / 2);
        assertThat(p.usage().reportedByProvider()).isFalse();
        assertThat(p.usage().outputTokens()).isPositive();
    }

    @Test
    void responsesStreamReportsUsageOnCompleted() {
        RequestFacts facts = RequestFacts.builder("openai")
                .operation("responses")
                .streaming(true)
                .build();
        UsageParser p = feed(parser(facts, SSE), fixture("responses-stream.sse"));
        Usage u = p.usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(37);
        assertThat(u.outputTokens()).isEqualTo(11);
        assertThat(u.cachedInputTokens()).isEqualTo(5);
        assertThat(u.reasoningTokens()).isEqualTo(2);
        assertThat(p.streamError()).isNull();
    }

    @Test
    void responsesStreamFailureIsAStreamError() {
        RequestFacts facts = RequestFacts.builder("openai")
                .operation("responses")
                .streaming(true)
                .estimatedInputTokens(50)
                .build();
        UsageParser p = feed(parser(facts, SSE), fixture("responses-stream-failed.sse"));
        ProviderError e = p.streamError();
        assertThat(e).isNotNull();
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.code()).isEqualTo("rate_limit_exceeded");
        assertThat(e.limiter()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(e.retryAfterMillis()).isEqualTo(1200);
        assertThat(p.usage().reportedByProvider()).isFalse();
        assertThat(p.usage().outputTokens()).isEqualTo(ESTIMATOR.tokensForText(null, "Partial answ".length()));
        assertThat(p.usage().inputTokens()).isEqualTo(50);
    }

    @Test
    void overloadAndErrorEventsAreStreamErrorsToo() {
        String overloaded =
                "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\","
                        + "\"error\":{\"code\":\"server_is_overloaded\",\"message\":\"overloaded\"},\"usage\":null}}\n\n";
        assertThat(feed(parser(CHAT, SSE), utf8(overloaded)).streamError().outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        String errorEvent = "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\","
                + "\"message\":\"Please try again in 20ms.\",\"param\":null,\"sequence_number\":3}\n\n";
        ProviderError e = feed(parser(CHAT, SSE), utf8(errorEvent)).streamError();
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.retryAfterMillis()).isEqualTo(20);
        String chatChunkError = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
                + "data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\",\"code\":null}}\n\n";
        assertThat(feed(parser(CHAT, SSE), utf8(chatChunkError)).streamError().outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(feed(parser(CHAT, SSE), fixture("chat-stream-with-usage.sse"))
                        .streamError())
                .isNull();
    }

    @Test
    void chatCompletionJson() {
        UsageParser p = feed(parser(CHAT, JSON), fixture("chat-completion.json"), 100, 101, 500);
        Usage u = p.usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(1117);
        assertThat(u.outputTokens()).isEqualTo(46);
        assertThat(u.cachedInputTokens()).isEqualTo(1024);
        assertThat(u.reasoningTokens()).isEqualTo(12);
        assertThat(p.streamError()).isNull();
    }

    @Test
    void cacheWritesOfGpt56AndLaterArePartOfTheInput() {
        String chat = "{\"choices\":[],\"usage\":{\"prompt_tokens\":5000,\"completion_tokens\":20,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":1000,\"cache_write_tokens\":3000}}}";
        Usage u = feed(parser(CHAT, JSON), utf8(chat)).usage();
        assertThat(u.inputTokens()).isEqualTo(5000);
        assertThat(u.cachedInputTokens()).isEqualTo(1000);
        assertThat(u.cacheCreationInputTokens()).isEqualTo(3000);
        String response = "{\"output\":[],\"usage\":{\"input_tokens\":800,\"output_tokens\":9,"
                + "\"input_tokens_details\":{\"cached_tokens\":0,\"cache_write_tokens\":512}}}";
        assertThat(feed(parser(CHAT, JSON), utf8(response)).usage().cacheCreationInputTokens())
                .isEqualTo(512);
        assertThat(feed(parser(CHAT, JSON), fixture("chat-completion.json"))
                        .usage()
                        .cacheCreationInputTokens())
                .as("none reported: none")
                .isZero();
    }

    @Test
    void responseJson() {
        Usage u = feed(parser(CHAT, JSON), fixture("response.json")).usage();
        assertThat(u.inputTokens()).isEqualTo(37);
        assertThat(u.outputTokens()).isEqualTo(11);
    }

    @Test
    void embeddingsJsonHasNoOutput() {
        RequestFacts facts =
                RequestFacts.builder("openai").operation("embeddings").build();
        Usage u = feed(parser(facts, JSON), fixture("embeddings.json")).usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(8);
        assertThat(u.outputTokens()).isZero();
    }

    @Test
    void jsonWithoutUsageCountsTheMessage() {
        String body = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"abcdefgh\"}}]}";
        Usage u = feed(parser(CHAT, JSON), utf8(body)).usage();
        assertThat(u.reportedByProvider()).isFalse();
        assertThat(u.outputTokens()).isEqualTo(2);
        assertThat(u.inputTokens()).isEqualTo(20);
    }

    @Test
    void usageAtTheEndIsReadWithoutWalkingTheAnswerBeforeIt() {
        // the text before usage cannot be walked (a stray byte after choices): only the end is read
        String body = "{\"choices\":[{\"message\":{\"content\":\"abcdefgh\"}}] x,"
                + "\"usage\":{\"prompt_tokens\":31,\"completion_tokens\":9},\"service_tier\":\"default\"}";
        Usage u = feed(parser(CHAT, JSON), utf8(body)).usage();
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(31);
        assertThat(u.outputTokens()).isEqualTo(9);
    }

    @Test
    void usageAtTheEndWithoutTokenCountsStillCountsTheText() {
        String body = "{\"choices\":[{\"message\":{\"content\":\"abcdefgh\"}}],\"usage\":{\"total_tokens\":5}}";
        Usage u = feed(parser(CHAT, JSON), utf8(body)).usage();
        assertThat(u.reportedByProvider()).isFalse();
        assertThat(u.outputTokens()).isEqualTo(2);
        assertThat(u.inputTokens()).isEqualTo(20);
    }

    @Test
    void aHugeBodyIsGivenUpOnAndChargedByItsSizeUpToTheCap() {
        UsageParser p = parser(CHAT, JSON);
        byte[] mb = new byte[1 << 20];
        Arrays.fill(mb, (byte) ' ');
        for (int i = 0; i < 5; i++) {
            p.accept(mb, 0, mb.length);
        }
        p.finish();
        assertThat(p.usage().reportedByProvider()).isFalse();
        assertThat(p.usage().outputTokens()).isEqualTo(1000);
        assertThat(p.usage().inputTokens()).isEqualTo(20);
    }

    @Test
    void contentTypeDecidesTheFormatAndTheRequestDecidesWithoutOne() {
        byte[] sse = fixture("chat-stream-with-usage.sse");
        assertThat(feed(parser(CHAT, Headers.empty()), sse).usage().reportedByProvider())
                .isTrue();
        RequestFacts notStreaming = RequestFacts.builder("openai").build();
        assertThat(feed(parser(notStreaming, Headers.empty()), fixture("chat-completion.json"))
                        .usage()
                        .inputTokens())
                .isEqualTo(1117);
        assertThat(feed(adapter.usageParser(null, null, null), fixture("chat-completion.json"))
                        .usage()
                        .inputTokens())
                .isEqualTo(1117);
    }

    @Test
    void garbageNeverThrows() {
        Random random = new Random(5);
        for (Headers h : new Headers[] {SSE, JSON}) {
            for (int round = 0; round < 200; round++) {
                UsageParser p = adapter.usageParser(CHAT, h, round % 2 == 0 ? ESTIMATOR : null);
                for (int i = 0; i < 20; i++) {
                    byte[] junk = new byte[random.nextInt(200)];
                    random.nextBytes(junk);
                    if (i % 3 == 0) {
                        junk = ("data: {\"usage\":{\"prompt_tokens\":" + (random.nextInt(3) - 1) + ",\"choices\":"
                                        + "[{\"delta\":{\"content\":" + random.nextInt() + "}}]\n\n")
                                .getBytes();
                    }
                    p.accept(junk, 0, junk.length);
                }
                p.accept(null, 0, 10);
                p.accept(new byte[2], 1, 10);
                p.finish();
                p.finish();
                assertThat(p.usage()).isNotNull();
                p.streamError();
            }
        }
    }
}
