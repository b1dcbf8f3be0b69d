package dev.sluice.core.provider;

import static dev.sluice.core.provider.ParserInputs.ADAPTERS;
import static dev.sluice.core.provider.ParserInputs.json;
import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.testing.PropertyRun.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.wire.HeaderNumbers;
import dev.sluice.core.testing.Gen;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

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

    static final String[] CONTENT_TYPES = {
        "text/event-stream",
        "text/event-stream; charset=utf-8",
        "application/json",
        "application/json; charset=utf-8",
        "TEXT/EVENT-STREAM",
        "text/html",
        "text/plain",
        "application/octet-stream",
        "",
        null
    };

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

    static final Gen<Fed> ANY_BODY = anyBody();

    static Gen<Fed> anyBody() {
        Gen<byte[]> realistic = Gen.oneOf(
                        openAiStream(), anthropicStream(), geminiStream(), openAiJson(), anthropicJson(), geminiJson())
                .map(a -> a.body);
        Gen<byte[]> body = Gen.<byte[]>weighted(4, realistic)
                .or(3, ParserInputs.damaged(realistic))
                .or(2, oddUsageJson())
                .or(2, ParserInputs.brokenBody())
                .or(1, junkEvents().map(j -> ParserInputs.utf8(j.replace(EOL, "\n"))));
        Gen<int[]> cuts = ParserInputs.cuts();
        return random -> {
            byte[] b = body.next(random);
            return new Fed(b, ParserInputs.cutsFor(cuts.next(random), b.length));
        };
    }

    static final Gen<RequestFacts> ANY_FACTS = anyFacts();

    static Gen<RequestFacts> anyFacts() {
        Gen<Long> maxs = Gen.longs(-5, 100_000);
        Gen<Long> estimates = Gen.longs(-5, MAX_ESTIMATE);
        Gen<String> operations =
                Gen.of("chat.completions", "responses", "embeddings", "messages", "streamGenerateContent", "unknown");
        return random -> RequestFacts.builder("test")
                .streaming(random.nextBoolean())
                .maxOutputTokens(maxs.next(random))
                .estimatedInputTokens(estimates.next(random))
                .operation(operations.next(random))
                .model("m")
                .build();
    }

    @Test
    void everyAdapterReadsAnyBodyWithoutFaultOrAbsurdFigures() {
        Gen<String> contentTypes = Gen.of(CONTENT_TYPES);
        forAll(600, trial -> {
            Fed fed = trial.draw("fed", ANY_BODY);
            RequestFacts facts = trial.draw("facts", ANY_FACTS);
            String contentType = trial.draw("contentType", contentTypes);
            Headers headers =
                    contentType == null ? Headers.empty() : ParserInputs.headersOf("content-type", contentType);
            for (ProviderAdapter adapter : ADAPTERS) {
                UsageParser parser =
                        ParserInputs.feed(adapter.usageParser(facts, headers, ESTIMATOR), fed.body, fed.cuts);
                Usage u = parser.usage();
                assertSane(adapter.kind(), u);
                String model = parser.responseModel();
                if (model != null) {
                    assertThat(model.length()).as(adapter.kind()).isBetween(1, JsonScalars.MOST_NAME_CHARS);
                    assertThat(model.chars()).as(adapter.kind()).allMatch(c -> c >= 0x20 && c != 0x7f);
                }
                ProviderError streamError = parser.streamError();
                if (streamError != null) {
                    assertThat(streamError.outcome()).isNotNull();
                    ErrorClassificationPropertiesTest.assertClamped(adapter.kind(), streamError);
                }
            }
        });
    }

    static void assertSane(String kind, Usage u) {
        assertThat(u).as(kind).isNotNull();
        for (long figure : new long[] {
            u.inputTokens(), u.outputTokens(), u.cachedInputTokens(), u.cacheCreationInputTokens(), u.reasoningTokens()
        }) {
            assertThat(figure).as(kind + " " + u).isBetween(0L, MOST_TOKENS);
        }
        assertThat(u.totalTokens()).as(kind + " " + u).isBetween(0L, 2 * MOST_TOKENS);
    }

    @Test
    void nullFactsHeadersAndChunksAreTolerated() {
        forAll(50, trial -> {
            Fed fed = trial.draw("fed", ANY_BODY);
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
        });
    }

    // ------------------------------------------------------------ real answers read exactly

    /** A provider's answer and the usage it reports. */
    static final class Answer {
        final String format;
        final byte[] body;
        final long input;
        final long output;
        /** The model the answer names. */
        final String model;

        Answer(String format, String body, long input, long output, String model) {
            this.format = format;
            this.body = ParserInputs.utf8(body);
            this.input = input;
            this.output = output;
            this.model = model;
        }

        @Override
        public String toString() {
            return format + " in=" + input + " out=" + output + " model=" + model + ": "
                    + new String(body, 0, Math.min(body.length, 800), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    static final Gen<Long> CUT_SEEDS = Gen.longs();

    @Test
    void openAiFormatStreamsReadTheReportedUsage() {
        Gen<Answer> openAiStreams = openAiStream();
        forAll(
                200,
                trial -> assertReadsReportedUsage(
                        trial.draw("answer", openAiStreams),
                        List.of("openai", "azure-openai", "openai-compatible", "fixed-window-gateway"),
                        "text/event-stream",
                        trial.draw("cutSeed", CUT_SEEDS)));
    }

    @Test
    void anthropicStreamsReadTheReportedUsage() {
        Gen<Answer> anthropicStreams = anthropicStream();
        forAll(
                200,
                trial -> assertReadsReportedUsage(
                        trial.draw("answer", anthropicStreams),
                        List.of("anthropic"),
                        "text/event-stream",
                        trial.draw("cutSeed", CUT_SEEDS)));
    }

    @Test
    void geminiStreamsReadTheReportedUsage() {
        Gen<Answer> geminiStreams = geminiStream();
        forAll(150, trial -> {
            Answer answer = trial.draw("answer", geminiStreams);
            long seed = trial.draw("cutSeed", CUT_SEEDS);
            assertReadsReportedUsage(answer, List.of("gemini", "vertex-ai"), "text/event-stream", seed);
            assertReadsReportedUsage(answer, List.of("gemini", "vertex-ai"), null, seed);
        });
    }

    @Test
    void jsonAnswersReadTheReportedUsage() {
        Gen<Answer> jsonAnswers = Gen.oneOf(openAiJson(), anthropicJson(), geminiJson());
        forAll(300, trial -> {
            Answer answer = trial.draw("answer", jsonAnswers);
            long seed = trial.draw("cutSeed", CUT_SEEDS);
            List<String> kinds = answer.format.equals("openai")
                    ? List.of("openai", "azure-openai", "openai-compatible", "fixed-window-gateway")
                    : answer.format.equals("anthropic") ? List.of("anthropic") : List.of("gemini", "vertex-ai");
            assertReadsReportedUsage(answer, kinds, "application/json", seed);
        });
    }

    private static void assertReadsReportedUsage(Answer answer, List<String> kinds, String contentType, long seed) {
        java.util.Random random = new java.util.Random(seed);
        int[] cuts = random.ints(random.nextInt(12), 0, answer.body.length + 1)
                .sorted()
                .toArray();
        RequestFacts facts = RequestFacts.builder("test")
                .streaming(true)
                .estimatedInputTokens(7)
                .model("m")
                .build();
        Headers headers = contentType == null ? Headers.empty() : ParserInputs.headersOf("content-type", contentType);
        for (String kind : kinds) {
            ProviderAdapter adapter = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind));
            UsageParser parser = ParserInputs.feed(adapter.usageParser(facts, headers, ESTIMATOR), answer.body, cuts);
            Usage u = parser.usage();
            assertThat(u.inputTokens())
                    .as(kind + " input, cut at " + java.util.Arrays.toString(cuts))
                    .isEqualTo(answer.input);
            assertThat(u.outputTokens())
                    .as(kind + " output, cut at " + java.util.Arrays.toString(cuts))
                    .isEqualTo(answer.output);
            assertThat(u.reportedByProvider()).as(kind).isTrue();
            assertThat(parser.responseModel())
                    .as(kind + " model, cut at " + java.util.Arrays.toString(cuts))
                    .isEqualTo(answer.model);
            assertThat(parser.streamError()).as(kind).isNull();
        }
    }

    // ------------------------------------------------------------ answers of each provider

    /** A count the provider reported, and how its JSON puts it. */
    static final class Count {
        final long n;
        final String json;

        Count(long n, String json) {
            this.n = n;
            this.json = json;
        }

        @Override
        public String toString() {
            return json;
        }
    }

    /** A count as JSON: a number, a float or a numeric string; all read the same. */
    static Gen<Count> count() {
        Gen<Long> counts = Gen.longs(0, 5_000_000);
        return random -> {
            long n = counts.next(random);
            int style = random.nextInt(3);
            return new Count(n, style == 0 ? String.valueOf(n) : style == 1 ? n + ".0" : "\"" + n + "\"");
        };
    }

    /** The names answers give their model: dated snapshots, fine-tunes, any letters. */
    static Gen<String> models() {
        return Gen.of(
                "gpt-4o-mini-2024-07-18",
                "claude-sonnet-4-5-20250929",
                "gemini-2.5-flash",
                "ft:gpt-4o-mini-2024-07-18:acme:support:9xYz",
                "mod\u00e8le-\u00e9t\u00e9",
                "m");
    }

    /** Text a model streams: any unicode, so multi-byte characters are cut between chunks. */
    static Gen<List<String>> pieces() {
        return Gen.anyStrings(12).list(0, 6);
    }

    static Gen<String> lineEnds() {
        return Gen.of("\n", "\r\n", "\r");
    }

    /** Stands for the stream's line ending in junk events, replaced when the stream is assembled. */
    static final String EOL = "\u0000";

    /**
     * Events a stream may carry besides the real ones, each ending in a blank line: comments,
     * pings, ids, junk data, and now and then a 1 MB line. {@link #EOL} marks line ends.
     */
    static Gen<String> junkEvents() {
        Gen<String> one = Gen.<String>weighted(
                        3,
                        Gen.of(
                                ": ping",
                                ": keep-alive",
                                "event: ping" + EOL + "data: {}",
                                "id: 5" + EOL + "retry: 100",
                                "data: <html><body>502</body></html>",
                                "data: {\"choices\":[{\"delta\":{\"content\":\"tru",
                                "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\"}]}}]}",
                                "data:",
                                "data: null",
                                "data: 42",
                                "data: []",
                                "data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":5}}",
                                "event: " + EOL + "data: {\"type\":\"ping\"}",
                                "data: \uFFFD\uFFFD garbage \u00ff"))
                .or(
                        1,
                        Gen.anyStrings(30)
                                .map(s -> "data: "
                                        + s.replace('\n', ' ')
                                                .replace('\r', ' ')
                                                .replace('\u0000', ' ')))
                .or(
                        1,
                        Gen.ints(0, 40)
                                .map(i -> i == 0 ? "data: " + "x".repeat(1 << 20) : "data: " + "y".repeat(i * 100)));
        return one.list(0, 2).map(events -> {
            StringBuilder b = new StringBuilder();
            for (String e : events) {
                b.append(e).append(EOL).append(EOL);
            }
            return b.toString();
        });
    }

    /** Junk to put before each event of a stream and after the last. */
    static Gen<List<String>> junkBetween() {
        return junkEvents().list(12, 12);
    }

    /** The events, each ending in a blank line, joined with the stream's line ending, junk between them. */
    static String sse(List<String> events, String eol, List<String> junk) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < events.size(); i++) {
            b.append(junk.get(i).replace(EOL, eol))
                    .append(events.get(i).replace("\n", eol))
                    .append(eol)
                    .append(eol);
        }
        return b.append(junk.get(events.size()).replace(EOL, eol)).toString();
    }

    static Gen<Answer> openAiStream() {
        Gen<String> models = models();
        Gen<Count> count = count();
        Gen<List<String>> pieces = pieces();
        Gen<String> lineEnds = lineEnds();
        Gen<List<String>> junkBetween = junkBetween();
        return random -> {
            Count prompt = count.next(random);
            Count completion = count.next(random);
            Count cached = count.next(random);
            List<String> text = pieces.next(random);
            String eol = lineEnds.next(random);
            boolean responsesApi = random.nextBoolean();
            String model = models.next(random);
            List<String> junk = junkBetween.next(random);
            List<String> events = new ArrayList<>();
            if (responsesApi) {
                events.add("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\","
                        + "\"model\":" + json(model) + "}}");
                for (String t : text) {
                    events.add("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                            + "\"delta\":" + json(t) + "}");
                }
                events.add("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{"
                        + "\"id\":\"r\",\"usage\":{\"input_tokens\":" + prompt.json + ",\"input_tokens_details\":"
                        + "{\"cached_tokens\":" + cached.json + "},\"output_tokens\":" + completion.json
                        + ",\"total_tokens\":" + (prompt.n + completion.n) + "}}}");
            } else {
                events.add("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":" + json(model)
                        + ",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}");
                for (String t : text) {
                    events.add("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                            + "\"delta\":{\"content\":" + json(t) + "}}]}");
                }
                events.add("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                        + "\"prompt_tokens\":" + prompt.json + ",\"completion_tokens\":" + completion.json
                        + ",\"total_tokens\":" + (prompt.n + completion.n)
                        + ",\"prompt_tokens_details\":{\"cached_tokens\":" + cached.json + "}}}");
                events.add("data: [DONE]");
            }
            return new Answer("openai", sse(events, eol, junk), prompt.n, completion.n, model);
        };
    }

    static Gen<Answer> anthropicStream() {
        Gen<String> models = models();
        Gen<Count> count = count();
        Gen<List<String>> pieces = pieces();
        Gen<String> lineEnds = lineEnds();
        Gen<List<String>> junkBetween = junkBetween();
        return random -> {
            Count input = count.next(random);
            Count output = count.next(random);
            Count cacheCreation = count.next(random);
            Count cacheRead = count.next(random);
            List<String> text = pieces.next(random);
            String eol = lineEnds.next(random);
            String model = models.next(random);
            List<String> junk = junkBetween.next(random);
            List<String> events = new ArrayList<>();
            events.add("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
                    + "\"model\":" + json(model) + ",\"content\":[],\"usage\":{\"input_tokens\":" + input.json
                    + ",\"cache_creation_input_tokens\":" + cacheCreation.json + ",\"cache_read_input_tokens\":"
                    + cacheRead.json + ",\"output_tokens\":1}}}");
            events.add("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                    + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
            for (String t : text) {
                events.add("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":" + json(t) + "}}");
            }
            events.add("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}");
            events.add("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
                    + "\"end_turn\"},\"usage\":{\"output_tokens\":" + output.json + "}}");
            events.add("event: message_stop\ndata: {\"type\":\"message_stop\"}");
            return new Answer("anthropic", sse(events, eol, junk), input.n + cacheCreation.n, output.n, model);
        };
    }

    static Gen<Answer> geminiStream() {
        Gen<String> models = models();
        Gen<Count> count = count();
        Gen<List<String>> pieces = pieces();
        Gen<String> lineEnds = lineEnds();
        Gen<List<String>> junkBetween = junkBetween();
        return random -> {
            Count prompt = count.next(random);
            Count candidates = count.next(random);
            Count thoughts = count.next(random);
            List<String> text = pieces.next(random);
            String eol = lineEnds.next(random);
            String model = models.next(random);
            List<String> junk = junkBetween.next(random);
            List<String> events = new ArrayList<>();
            for (String t : text) {
                events.add("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":" + json(t) + "}],"
                        + "\"role\":\"model\"}}],\"usageMetadata\":{\"promptTokenCount\":" + prompt.json
                        + ",\"totalTokenCount\":" + prompt.json + "}}");
            }
            events.add("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\".\"}],\"role\":\"model\"},"
                    + "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":" + prompt.json
                    + ",\"candidatesTokenCount\":" + candidates.json + ",\"thoughtsTokenCount\":"
                    + thoughts.json + ",\"totalTokenCount\":"
                    + (prompt.n + candidates.n + thoughts.n) + "},\"modelVersion\":" + json(model) + "}");
            return new Answer("gemini", sse(events, eol, junk), prompt.n, candidates.n + thoughts.n, model);
        };
    }

    static Gen<Answer> openAiJson() {
        Gen<String> models = models();
        Gen<Count> count = count();
        Gen<String> texts = Gen.anyStrings(40);
        return random -> {
            Count prompt = count.next(random);
            Count completion = count.next(random);
            String text = texts.next(random);
            String model = models.next(random);
            return new Answer(
                    "openai",
                    "{\"id\":\"chatcmpl-1\",\"object\":"
                            + "\"chat.completion\",\"model\":" + json(model)
                            + ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                            + json(text) + "},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":" + prompt.json
                            + ",\"completion_tokens\":" + completion.json + ",\"total_tokens\":"
                            + (prompt.n + completion.n) + "}}",
                    prompt.n,
                    completion.n,
                    model);
        };
    }

    static Gen<Answer> anthropicJson() {
        Gen<String> models = models();
        Gen<Count> count = count();
        Gen<String> texts = Gen.anyStrings(40);
        return random -> {
            Count input = count.next(random);
            Count output = count.next(random);
            Count cacheCreation = count.next(random);
            String text = texts.next(random);
            String model = models.next(random);
            return new Answer(
                    "anthropic",
                    "{\"id\":\"msg_1\",\"type\":"
                            + "\"message\",\"role\":\"assistant\",\"model\":" + json(model)
                            + ",\"content\":[{\"type\":\"text\",\"text\":"
                            + json(text)
                            + "},{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{\"a\":[1,2]}}],\"usage\":{"
                            + "\"input_tokens\":" + input.json + ",\"cache_creation_input_tokens\":"
                            + cacheCreation.json
                            + ",\"cache_read_input_tokens\":0,\"output_tokens\":" + output.json + "}}",
                    input.n + cacheCreation.n,
                    output.n,
                    model);
        };
    }

    static Gen<Answer> geminiJson() {
        Gen<String> models = models();
        Gen<Count> count = count();
        Gen<String> texts = Gen.anyStrings(40);
        return random -> {
            Count prompt = count.next(random);
            Count candidates = count.next(random);
            String text = texts.next(random);
            String model = models.next(random);
            boolean array = random.nextBoolean();
            String one = "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":" + json(text) + "}],\"role\":"
                    + "\"model\"},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":"
                    + prompt.json + ",\"candidatesTokenCount\":" + candidates.json + ",\"totalTokenCount\":"
                    + (prompt.n + candidates.n) + "},\"modelVersion\":" + json(model) + "}";
            return new Answer("gemini", array ? "[" + one + "]" : one, prompt.n, candidates.n, model);
        };
    }

    /** Usage objects of every provider's shape with counts that are negative, huge, NaN, strings or junk. */
    static Gen<byte[]> oddUsageJson() {
        Gen<String> c = ParserInputs.jsonCount();
        Gen<List<String>> four = c.list(4, 4);
        return Gen.<String>oneOf(
                        four.map(x -> "{\"usage\":{\"prompt_tokens\":" + x.get(0)
                                + ",\"completion_tokens\":" + x.get(1) + ",\"total_tokens\":" + x.get(2)
                                + ",\"input_tokens\":"
                                + x.get(3) + ",\"output_tokens\":" + x.get(0)
                                + ",\"prompt_tokens_details\":{\"cached_tokens\":"
                                + x.get(2) + "},\"completion_tokens_details\":{\"reasoning_tokens\":" + x.get(3)
                                + "}}}"),
                        four.map(x -> "{\"type\":\"message\",\"usage\":{\"input_tokens\":"
                                + x.get(0) + ",\"cache_creation_input_tokens\":" + x.get(1)
                                + ",\"cache_read_input_tokens\":"
                                + x.get(2) + ",\"output_tokens\":" + x.get(3) + "}}"),
                        four.map(x -> "{\"candidates\":[{\"finishReason\":\"STOP\"}],"
                                + "\"usageMetadata\":{\"promptTokenCount\":" + x.get(0)
                                + ",\"toolUsePromptTokenCount\":"
                                + x.get(1) + ",\"candidatesTokenCount\":" + x.get(2) + ",\"thoughtsTokenCount\":"
                                + x.get(3)
                                + ",\"totalTokenCount\":" + x.get(0) + ",\"cachedContentTokenCount\":" + x.get(1)
                                + "}}"),
                        four.map(x -> "event: message_start\ndata: {\"type\":"
                                + "\"message_start\",\"message\":{\"usage\":{\"input_tokens\":" + x.get(0)
                                + ",\"cache_creation_input_tokens\":" + x.get(1)
                                + "}}}\n\nevent: message_delta\ndata: {\"type\":"
                                + "\"message_delta\",\"usage\":{\"output_tokens\":" + x.get(2)
                                + "}}\n\ndata: {\"choices\":[],"
                                + "\"usage\":{\"prompt_tokens\":" + x.get(3) + ",\"completion_tokens\":" + x.get(0)
                                + "}}\n\ndata: {\"usageMetadata\":{\"promptTokenCount\":" + x.get(0)
                                + ",\"toolUsePromptTokenCount\":" + x.get(1) + ",\"candidatesTokenCount\":" + x.get(2)
                                + ",\"thoughtsTokenCount\":" + x.get(3) + "}}\n\n"))
                .map(ParserInputs::utf8);
    }

    // ------------------------------------------------------------ regressions the properties found

    static Usage readJson(String kind, String body) {
        RequestFacts facts =
                RequestFacts.builder("test").estimatedInputTokens(7).model("m").build();
        UsageParser parser = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind))
                .usageParser(facts, ParserInputs.headersOf("content-type", "application/json"), ESTIMATOR);
        return ParserInputs.feed(parser, ParserInputs.utf8(body), new int[0]).usage();
    }

    /**
     * Counts up to 9e18 were taken: 2^62 input tokens plus 2^62 cache writes overflowed to a
     * negative sum, and usage() threw IllegalArgumentException into the call. A count beyond
     * {@link HeaderNumbers#MAX_COUNT} is now no count, and the estimate stands in.
     */
    @Test
    void anthropicHugeCountsNeitherOverflowNorThrow() {
        Usage u = readJson(
                "anthropic",
                "{\"type\":\"message\",\"usage\":{\"input_tokens\":4611686018427387904,"
                        + "\"cache_creation_input_tokens\":4611686018427387904,\"output_tokens\":5}}");
        assertThat(u.inputTokens()).isEqualTo(7);
        assertThat(u.outputTokens()).isEqualTo(5);
    }

    /** The same overflow in Gemini's candidates plus thoughts. */
    @Test
    void geminiHugeCountsNeitherOverflowNorThrow() {
        Usage u = readJson(
                "gemini",
                "{\"candidates\":[{\"finishReason\":\"STOP\"}],\"usageMetadata\":{"
                        + "\"promptTokenCount\":10,\"candidatesTokenCount\":4611686018427387904,"
                        + "\"thoughtsTokenCount\":4611686018427387904}}");
        assertThat(u.inputTokens()).isEqualTo(10);
        assertThat(u.outputTokens()).isZero();
    }

    /** A count of a quadrillion and one is garbage, not usage: it no longer reaches the governor. */
    @Test
    void countsBeyondAnyCallAreNoCounts() {
        Usage u = readJson("openai", "{\"usage\":{\"prompt_tokens\":1000000000000001,\"completion_tokens\":3}}");
        assertThat(u.inputTokens()).isEqualTo(7);
        assertThat(u.outputTokens()).isEqualTo(3);
    }
}
