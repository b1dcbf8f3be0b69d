package dev.sluice.core.provider;

import static dev.sluice.core.provider.ParserInputs.ADAPTERS;
import static dev.sluice.core.provider.ParserInputs.json;
import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.wire.HeaderNumbers;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Every adapter's usage parsers (JSON documents and SSE streams) fed any body in any chunking:
 * nothing escapes accept, finish, usage or streamError; every figure is non-negative and bounded;
 * and real answers of each provider, cut anywhere, with any line ending and junk events between
 * their events, read the usage the provider reported.
 */
class UsageParsingPropertiesTest {

    /** A request's input estimate in these tests is at most this. */
    static final long MAX_ESTIMATE = 1_000_000;

    /** No usage sums more than two reported counts and an estimate. */
    static final long MOST_TOKENS = 2 * HeaderNumbers.MAX_COUNT + MAX_ESTIMATE;

    static final String[] CONTENT_TYPES = {"text/event-stream", "text/event-stream; charset=utf-8",
            "application/json", "application/json; charset=utf-8", "TEXT/EVENT-STREAM", "text/html", "text/plain",
            "application/octet-stream", "", null};

    // ------------------------------------------------------------ nothing escapes, nothing absurd

    /** What a body under test is: its bytes and where they are cut into chunks. */
    static final class Fed {
        final byte[] body;
        final int[] cuts;

        Fed(byte[] body, int[] cuts) {
            this.body = body;
            this.cuts = cuts;
        }

        @Override
        public String toString() {
            String text = new String(body, 0, Math.min(body.length, 600), java.nio.charset.StandardCharsets.UTF_8);
            return body.length + " bytes cut at " + java.util.Arrays.toString(cuts) + ": " + text;
        }
    }

    @Provide
    Arbitrary<Fed> anyBody() {
        Arbitrary<byte[]> realistic = Arbitraries.oneOf(openAiStream(), anthropicStream(), geminiStream(),
                openAiJson(), anthropicJson(), geminiJson()).map(a -> a.body);
        Arbitrary<byte[]> body = Arbitraries.frequencyOf(
                Tuple.of(4, realistic),
                Tuple.of(3, ParserInputs.damaged(realistic)),
                Tuple.of(2, oddUsageJson()),
                Tuple.of(2, ParserInputs.brokenBody()),
                Tuple.of(1, junkEvents().map(j -> ParserInputs.utf8(j.replace(EOL, "\n")))));
        return Combinators.combine(body, ParserInputs.cuts()).as((b, c) -> new Fed(b, ParserInputs.cutsFor(c, b.length)));
    }

    @Provide
    Arbitrary<RequestFacts> anyFacts() {
        return Combinators.combine(Arbitraries.of(true, false), Arbitraries.longs().between(-5, 100_000),
                Arbitraries.longs().between(-5, MAX_ESTIMATE), Arbitraries.of("chat.completions", "responses",
                        "embeddings", "messages", "streamGenerateContent", "unknown"))
                .as((streaming, max, estimate, operation) -> RequestFacts.builder("test").streaming(streaming)
                        .maxOutputTokens(max).estimatedInputTokens(estimate).operation(operation).model("m").build());
    }

    @Provide
    Arbitrary<String> contentTypes() {
        return Arbitraries.of(CONTENT_TYPES);
    }

    @Property(tries = 600)
    void everyAdapterReadsAnyBodyWithoutFaultOrAbsurdFigures(@ForAll("anyBody") Fed fed,
            @ForAll("anyFacts") RequestFacts facts, @ForAll("contentTypes") String contentType) {
        Headers headers = contentType == null ? Headers.empty() : ParserInputs.headersOf("content-type", contentType);
        for (ProviderAdapter adapter : ADAPTERS) {
            UsageParser parser = ParserInputs.feed(adapter.usageParser(facts, headers, ESTIMATOR), fed.body, fed.cuts);
            Usage u = parser.usage();
            assertSane(adapter.kind(), u);
            ProviderError streamError = parser.streamError();
            if (streamError != null) {
                assertThat(streamError.outcome()).isNotNull();
                ErrorClassificationPropertiesTest.assertClamped(adapter.kind(), streamError);
            }
        }
    }

    static void assertSane(String kind, Usage u) {
        assertThat(u).as(kind).isNotNull();
        for (long figure : new long[] {u.inputTokens(), u.outputTokens(), u.cachedInputTokens(),
                u.cacheCreationInputTokens(), u.reasoningTokens()}) {
            assertThat(figure).as(kind + " " + u).isBetween(0L, MOST_TOKENS);
        }
        assertThat(u.totalTokens()).as(kind + " " + u).isBetween(0L, 2 * MOST_TOKENS);
    }

    @Property(tries = 50)
    void nullFactsHeadersAndChunksAreTolerated(@ForAll("anyBody") Fed fed) {
        for (ProviderAdapter adapter : ADAPTERS) {
            UsageParser parser = adapter.usageParser(null, null, null);
            parser.accept(null, 0, 5);
            parser.accept(fed.body, -1, 3);
            parser.accept(fed.body, fed.body.length, 1);
            parser.accept(fed.body, 0, fed.body.length + 1);
            parser.accept(fed.body, 0, fed.body.length);
            parser.finish();
            parser.finish();
            assertSane(adapter.kind(), parser.usage());
            parser.streamError();
        }
    }

    // ------------------------------------------------------------ real answers read exactly

    /** A provider's answer and the usage it reports. */
    static final class Answer {
        final String format;
        final byte[] body;
        final long input;
        final long output;

        Answer(String format, String body, long input, long output) {
            this.format = format;
            this.body = ParserInputs.utf8(body);
            this.input = input;
            this.output = output;
        }

        @Override
        public String toString() {
            return format + " in=" + input + " out=" + output + ": " + new String(body, 0, Math.min(body.length, 800),
                    java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Property(tries = 200)
    void openAiFormatStreamsReadTheReportedUsage(@ForAll("openAiStreams") Answer answer, @ForAll("cutSeeds") long seed) {
        assertReadsReportedUsage(answer, List.of("openai", "azure-openai", "openai-compatible", "fixed-window-gateway"),
                "text/event-stream", seed);
    }

    @Property(tries = 200)
    void anthropicStreamsReadTheReportedUsage(@ForAll("anthropicStreams") Answer answer, @ForAll("cutSeeds") long seed) {
        assertReadsReportedUsage(answer, List.of("anthropic"), "text/event-stream", seed);
    }

    @Property(tries = 150)
    void geminiStreamsReadTheReportedUsage(@ForAll("geminiStreams") Answer answer, @ForAll("cutSeeds") long seed) {
        assertReadsReportedUsage(answer, List.of("gemini", "vertex-ai"), "text/event-stream", seed);
        assertReadsReportedUsage(answer, List.of("gemini", "vertex-ai"), null, seed);
    }

    @Property(tries = 300)
    void jsonAnswersReadTheReportedUsage(@ForAll("jsonAnswers") Answer answer, @ForAll("cutSeeds") long seed) {
        List<String> kinds = answer.format.equals("openai")
                ? List.of("openai", "azure-openai", "openai-compatible", "fixed-window-gateway")
                : answer.format.equals("anthropic") ? List.of("anthropic") : List.of("gemini", "vertex-ai");
        assertReadsReportedUsage(answer, kinds, "application/json", seed);
    }

    @Provide
    Arbitrary<Long> cutSeeds() {
        return Arbitraries.longs();
    }

    @Provide
    Arbitrary<Answer> openAiStreams() {
        return openAiStream();
    }

    @Provide
    Arbitrary<Answer> anthropicStreams() {
        return anthropicStream();
    }

    @Provide
    Arbitrary<Answer> geminiStreams() {
        return geminiStream();
    }

    @Provide
    Arbitrary<Answer> jsonAnswers() {
        return Arbitraries.oneOf(openAiJson(), anthropicJson(), geminiJson());
    }

    private static void assertReadsReportedUsage(Answer answer, List<String> kinds, String contentType, long seed) {
        java.util.Random random = new java.util.Random(seed);
        int[] cuts = random.ints(random.nextInt(12), 0, answer.body.length + 1).sorted().toArray();
        RequestFacts facts = RequestFacts.builder("test").streaming(true).estimatedInputTokens(7).model("m").build();
        Headers headers = contentType == null ? Headers.empty() : ParserInputs.headersOf("content-type", contentType);
        for (String kind : kinds) {
            ProviderAdapter adapter = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind));
            UsageParser parser = ParserInputs.feed(adapter.usageParser(facts, headers, ESTIMATOR), answer.body, cuts);
            Usage u = parser.usage();
            assertThat(u.inputTokens()).as(kind + " input, cut at " + java.util.Arrays.toString(cuts))
                    .isEqualTo(answer.input);
            assertThat(u.outputTokens()).as(kind + " output, cut at " + java.util.Arrays.toString(cuts))
                    .isEqualTo(answer.output);
            assertThat(u.reportedByProvider()).as(kind).isTrue();
            assertThat(parser.streamError()).as(kind).isNull();
        }
    }

    // ------------------------------------------------------------ answers of each provider

    /** A count as JSON: a number, a float or a numeric string; all read the same. */
    static Arbitrary<Tuple.Tuple2<Long, String>> count() {
        return Combinators.combine(Arbitraries.longs().between(0, 5_000_000), Arbitraries.integers().between(0, 2))
                .as((n, style) -> Tuple.of(n, style == 0 ? String.valueOf(n) : style == 1 ? n + ".0" : "\"" + n + "\""));
    }

    /** Text a model streams: any unicode, so multi-byte characters are cut between chunks. */
    static Arbitrary<List<String>> pieces() {
        return Arbitraries.strings().all().ofMaxLength(12).list().ofMaxSize(6);
    }

    static Arbitrary<String> lineEnds() {
        return Arbitraries.of("\n", "\r\n", "\r");
    }

    /** Stands for the stream's line ending in junk events, replaced when the stream is assembled. */
    static final String EOL = "\u0000";

    /**
     * Events a stream may carry besides the real ones, each ending in a blank line: comments,
     * pings, ids, junk data, and now and then a 1 MB line. {@link #EOL} marks line ends.
     */
    static Arbitrary<String> junkEvents() {
        Arbitrary<String> one = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(": ping", ": keep-alive", "event: ping" + EOL + "data: {}",
                        "id: 5" + EOL + "retry: 100", "data: <html><body>502</body></html>",
                        "data: {\"choices\":[{\"delta\":{\"content\":\"tru",
                        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\"}]}}]}", "data:",
                        "data: null", "data: 42", "data: []",
                        "data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":5}}",
                        "event: " + EOL + "data: {\"type\":\"ping\"}", "data: \uFFFD\uFFFD garbage \u00ff")),
                Tuple.of(1, Arbitraries.strings().all().ofMaxLength(30)
                        .map(s -> "data: " + s.replace('\n', ' ').replace('\r', ' ').replace('\u0000', ' '))),
                Tuple.of(1, Arbitraries.integers().between(0, 40).map(i -> i == 0 ? "data: " + "x".repeat(1 << 20)
                        : "data: " + "y".repeat(i * 100))));
        return one.list().ofMaxSize(2).map(events -> {
            StringBuilder b = new StringBuilder();
            for (String e : events) {
                b.append(e).append(EOL).append(EOL);
            }
            return b.toString();
        });
    }

    /** Junk to put before each event of a stream and after the last. */
    static Arbitrary<List<String>> junkBetween() {
        return junkEvents().list().ofSize(12);
    }

    /** The events, each ending in a blank line, joined with the stream's line ending, junk between them. */
    static String sse(List<String> events, String eol, List<String> junk) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < events.size(); i++) {
            b.append(junk.get(i).replace(EOL, eol)).append(events.get(i).replace("\n", eol)).append(eol).append(eol);
        }
        return b.append(junk.get(events.size()).replace(EOL, eol)).toString();
    }

    static Arbitrary<Answer> openAiStream() {
        return Combinators.combine(count(), count(), count(), pieces(), lineEnds(), Arbitraries.of(true, false),
                junkBetween()).as((prompt, completion, cached, text, eol, responsesApi, junk) -> {
                    List<String> events = new ArrayList<>();
                    if (responsesApi) {
                        events.add("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}");
                        for (String t : text) {
                            events.add("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                                    + "\"delta\":" + json(t) + "}");
                        }
                        events.add("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{"
                                + "\"id\":\"r\",\"usage\":{\"input_tokens\":" + prompt.get2() + ",\"input_tokens_details\":"
                                + "{\"cached_tokens\":" + cached.get2() + "},\"output_tokens\":" + completion.get2()
                                + ",\"total_tokens\":" + (prompt.get1() + completion.get1()) + "}}}");
                    } else {
                        events.add("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                                + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}");
                        for (String t : text) {
                            events.add("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                                    + "\"delta\":{\"content\":" + json(t) + "}}]}");
                        }
                        events.add("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                                + "\"prompt_tokens\":" + prompt.get2() + ",\"completion_tokens\":" + completion.get2()
                                + ",\"total_tokens\":" + (prompt.get1() + completion.get1())
                                + ",\"prompt_tokens_details\":{\"cached_tokens\":" + cached.get2() + "}}}");
                        events.add("data: [DONE]");
                    }
                    return new Answer("openai", sse(events, eol, junk), prompt.get1(), completion.get1());
                });
    }

    static Arbitrary<Answer> anthropicStream() {
        return Combinators.combine(count(), count(), count(), count(), pieces(), lineEnds(), junkBetween())
                .as((input, output, cacheCreation, cacheRead, text, eol, junk) -> {
                    List<String> events = new ArrayList<>();
                    events.add("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
                            + "\"content\":[],\"usage\":{\"input_tokens\":" + input.get2()
                            + ",\"cache_creation_input_tokens\":" + cacheCreation.get2() + ",\"cache_read_input_tokens\":"
                            + cacheRead.get2() + ",\"output_tokens\":1}}}");
                    events.add("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                            + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
                    for (String t : text) {
                        events.add("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                                + "\"delta\":{\"type\":\"text_delta\",\"text\":" + json(t) + "}}");
                    }
                    events.add("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}");
                    events.add("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
                            + "\"end_turn\"},\"usage\":{\"output_tokens\":" + output.get2() + "}}");
                    events.add("event: message_stop\ndata: {\"type\":\"message_stop\"}");
                    return new Answer("anthropic", sse(events, eol, junk), input.get1() + cacheCreation.get1(),
                            output.get1());
                });
    }

    static Arbitrary<Answer> geminiStream() {
        return Combinators.combine(count(), count(), count(), pieces(), lineEnds(), junkBetween())
                .as((prompt, candidates, thoughts, text, eol, junk) -> {
                    List<String> events = new ArrayList<>();
                    for (String t : text) {
                        events.add("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":" + json(t) + "}],"
                                + "\"role\":\"model\"}}],\"usageMetadata\":{\"promptTokenCount\":" + prompt.get2()
                                + ",\"totalTokenCount\":" + prompt.get2() + "}}");
                    }
                    events.add("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\".\"}],\"role\":\"model\"},"
                            + "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":" + prompt.get2()
                            + ",\"candidatesTokenCount\":" + candidates.get2() + ",\"thoughtsTokenCount\":"
                            + thoughts.get2() + ",\"totalTokenCount\":"
                            + (prompt.get1() + candidates.get1() + thoughts.get1()) + "}}");
                    return new Answer("gemini", sse(events, eol, junk), prompt.get1(),
                            candidates.get1() + thoughts.get1());
                });
    }

    static Arbitrary<Answer> openAiJson() {
        return Combinators.combine(count(), count(), Arbitraries.strings().all().ofMaxLength(40))
                .as((prompt, completion, text) -> new Answer("openai", "{\"id\":\"chatcmpl-1\",\"object\":"
                        + "\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                        + json(text) + "},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":" + prompt.get2()
                        + ",\"completion_tokens\":" + completion.get2() + ",\"total_tokens\":"
                        + (prompt.get1() + completion.get1()) + "}}", prompt.get1(), completion.get1()));
    }

    static Arbitrary<Answer> anthropicJson() {
        return Combinators.combine(count(), count(), count(), Arbitraries.strings().all().ofMaxLength(40))
                .as((input, output, cacheCreation, text) -> new Answer("anthropic", "{\"id\":\"msg_1\",\"type\":"
                        + "\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":" + json(text)
                        + "},{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{\"a\":[1,2]}}],\"usage\":{"
                        + "\"input_tokens\":" + input.get2() + ",\"cache_creation_input_tokens\":" + cacheCreation.get2()
                        + ",\"cache_read_input_tokens\":0,\"output_tokens\":" + output.get2() + "}}",
                        input.get1() + cacheCreation.get1(), output.get1()));
    }

    static Arbitrary<Answer> geminiJson() {
        return Combinators.combine(count(), count(), Arbitraries.strings().all().ofMaxLength(40),
                Arbitraries.of(true, false)).as((prompt, candidates, text, array) -> {
                    String one = "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":" + json(text) + "}],\"role\":"
                            + "\"model\"},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":"
                            + prompt.get2() + ",\"candidatesTokenCount\":" + candidates.get2() + ",\"totalTokenCount\":"
                            + (prompt.get1() + candidates.get1()) + "}}";
                    return new Answer("gemini", array ? "[" + one + "]" : one, prompt.get1(), candidates.get1());
                });
    }

    /** Usage objects of every provider's shape with counts that are negative, huge, NaN, strings or junk. */
    static Arbitrary<byte[]> oddUsageJson() {
        Arbitrary<String> c = ParserInputs.jsonCount();
        return Arbitraries.oneOf(
                Combinators.combine(c, c, c, c).as((a, b, d, e) -> "{\"usage\":{\"prompt_tokens\":" + a
                        + ",\"completion_tokens\":" + b + ",\"total_tokens\":" + d + ",\"input_tokens\":" + e
                        + ",\"output_tokens\":" + a + ",\"prompt_tokens_details\":{\"cached_tokens\":" + d + "},"
                        + "\"completion_tokens_details\":{\"reasoning_tokens\":" + e + "}}}"),
                Combinators.combine(c, c, c, c).as((a, b, d, e) -> "{\"type\":\"message\",\"usage\":{\"input_tokens\":"
                        + a + ",\"cache_creation_input_tokens\":" + b + ",\"cache_read_input_tokens\":" + d
                        + ",\"output_tokens\":" + e + "}}"),
                Combinators.combine(c, c, c, c).as((a, b, d, e) -> "{\"candidates\":[{\"finishReason\":\"STOP\"}],"
                        + "\"usageMetadata\":{\"promptTokenCount\":" + a + ",\"toolUsePromptTokenCount\":" + b
                        + ",\"candidatesTokenCount\":" + d + ",\"thoughtsTokenCount\":" + e + ",\"totalTokenCount\":" + a
                        + ",\"cachedContentTokenCount\":" + b + "}}"),
                Combinators.combine(c, c, c, c).as((a, b, d, e) -> "event: message_start\ndata: {\"type\":"
                        + "\"message_start\",\"message\":{\"usage\":{\"input_tokens\":" + a
                        + ",\"cache_creation_input_tokens\":" + b + "}}}\n\nevent: message_delta\ndata: {\"type\":"
                        + "\"message_delta\",\"usage\":{\"output_tokens\":" + d + "}}\n\ndata: {\"choices\":[],"
                        + "\"usage\":{\"prompt_tokens\":" + e + ",\"completion_tokens\":" + a + "}}\n\ndata: {"
                        + "\"usageMetadata\":{\"promptTokenCount\":" + a + ",\"toolUsePromptTokenCount\":" + b
                        + ",\"candidatesTokenCount\":" + d + ",\"thoughtsTokenCount\":" + e + "}}\n\n"))
                .map(ParserInputs::utf8);
    }

    // ------------------------------------------------------------ regressions the properties found

    static Usage readJson(String kind, String body) {
        RequestFacts facts = RequestFacts.builder("test").estimatedInputTokens(7).model("m").build();
        UsageParser parser = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind)).usageParser(facts,
                ParserInputs.headersOf("content-type", "application/json"), ESTIMATOR);
        return ParserInputs.feed(parser, ParserInputs.utf8(body), new int[0]).usage();
    }

    /**
     * Counts up to 9e18 were taken: 2^62 input tokens plus 2^62 cache writes overflowed to a
     * negative sum, and usage() threw IllegalArgumentException into the call. A count beyond
     * {@link HeaderNumbers#MAX_COUNT} is now no count, and the estimate stands in.
     */
    @org.junit.jupiter.api.Test
    void anthropicHugeCountsNeitherOverflowNorThrow() {
        Usage u = readJson("anthropic", "{\"type\":\"message\",\"usage\":{\"input_tokens\":4611686018427387904,"
                + "\"cache_creation_input_tokens\":4611686018427387904,\"output_tokens\":5}}");
        assertThat(u.inputTokens()).isEqualTo(7);
        assertThat(u.outputTokens()).isEqualTo(5);
    }

    /** The same overflow in Gemini's candidates plus thoughts. */
    @org.junit.jupiter.api.Test
    void geminiHugeCountsNeitherOverflowNorThrow() {
        Usage u = readJson("gemini", "{\"candidates\":[{\"finishReason\":\"STOP\"}],\"usageMetadata\":{"
                + "\"promptTokenCount\":10,\"candidatesTokenCount\":4611686018427387904,"
                + "\"thoughtsTokenCount\":4611686018427387904}}");
        assertThat(u.inputTokens()).isEqualTo(10);
        assertThat(u.outputTokens()).isZero();
    }

    /** A count of a quadrillion and one is garbage, not usage: it no longer reaches the governor. */
    @org.junit.jupiter.api.Test
    void countsBeyondAnyCallAreNoCounts() {
        Usage u = readJson("openai", "{\"usage\":{\"prompt_tokens\":1000000000000001,\"completion_tokens\":3}}");
        assertThat(u.inputTokens()).isEqualTo(7);
        assertThat(u.outputTokens()).isEqualTo(3);
    }
}
