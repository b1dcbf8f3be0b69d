package dev.sluice.core.provider;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The model each provider's answer names ({@code gen_ai.response.model}), read by every adapter of
 * its format from real answers, JSON and streamed, cut into chunks anywhere.
 */
class ResponseModelTest {

    static final List<String> OPENAI_FORMAT =
            List.of("openai", "azure-openai", "openai-compatible", "fixed-window-gateway");

    static final RequestFacts FACTS = RequestFacts.builder("test")
            .model("requested")
            .estimatedInputTokens(7)
            .build();

    static byte[] fixture(String path) {
        try (InputStream in = ResponseModelTest.class.getResourceAsStream("/" + path)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the parser of each of these adapters reads as the answer's model, fed in chunks cut anywhere. */
    private static void assertModel(String expected, byte[] body, String contentType, List<String> kinds) {
        Random random = new Random(body.length);
        for (String kind : kinds) {
            ProviderAdapter adapter = ParserInputs.ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind));
            for (int round = 0; round < 40; round++) {
                int[] cuts = round == 0
                        ? new int[0]
                        : round == 1 && body.length < 4096
                                ? java.util.stream.IntStream.range(1, body.length)
                                        .toArray()
                                : random.ints(random.nextInt(12), 0, body.length + 1)
                                        .sorted()
                                        .toArray();
                Headers headers =
                        contentType == null ? Headers.empty() : ParserInputs.headersOf("content-type", contentType);
                UsageParser parser = adapter.usageParser(FACTS, headers, ESTIMATOR);
                assertThat(parser.responseModel()).as("before the body").isNull();
                ParserInputs.feed(parser, body, cuts);
                assertThat(parser.responseModel())
                        .as("%s cut at %s", kind, java.util.Arrays.toString(cuts))
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void openAiFormatJsonAnswersNameTheirModel() {
        assertModel("gpt-4o-2024-08-06", fixture("openai/chat-completion.json"), "application/json", OPENAI_FORMAT);
        assertModel("gpt-4.1-2025-04-14", fixture("openai/response.json"), "application/json", OPENAI_FORMAT);
        assertModel("text-embedding-3-small", fixture("openai/embeddings.json"), "application/json", OPENAI_FORMAT);
    }

    @Test
    void azureNamesTheModelAfterItsChoicesAndTheDeploymentsModelNotItsName() {
        String text = "x".repeat(20_000);
        byte[] body = ("{\"choices\":[{\"content_filter_results\":{},\"finish_reason\":\"stop\",\"index\":0,"
                        + "\"message\":{\"content\":\"" + text + "\",\"role\":\"assistant\"}}],\"created\":1733,"
                        + "\"id\":\"chatcmpl-A\",\"model\":\"gpt-4o-2024-11-20\",\"object\":\"chat.completion\","
                        + "\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{}}],"
                        + "\"system_fingerprint\":\"fp_b705f0c291\",\"usage\":{\"completion_tokens\":5000,"
                        + "\"prompt_tokens\":19,\"total_tokens\":5019}}")
                .getBytes(StandardCharsets.UTF_8);
        assertModel("gpt-4o-2024-11-20", body, "application/json", List.of("azure-openai"));
        // its stream's first chunk carries the prompt filter results and an empty model
        byte[] stream = ("data: {\"choices\":[],\"created\":0,\"id\":\"\",\"model\":\"\",\"object\":\"\","
                        + "\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{}}]}\n\n"
                        + "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"index\":0}],\"created\":1733,"
                        + "\"id\":\"chatcmpl-A\",\"model\":\"gpt-4o-2024-11-20\",\"object\":\"chat.completion.chunk\"}\n\n"
                        + "data: [DONE]\n\n")
                .getBytes(StandardCharsets.UTF_8);
        assertModel("gpt-4o-2024-11-20", stream, "text/event-stream", List.of("azure-openai"));
    }

    @Test
    void openAiFormatStreamsNameTheirModelInTheirChunksOrTheirResponse() {
        assertModel(
                "gpt-4o-mini-2024-07-18",
                fixture("openai/chat-stream-with-usage.sse"),
                "text/event-stream",
                OPENAI_FORMAT);
        assertModel(
                "gpt-4o-mini-2024-07-18",
                fixture("openai/chat-stream-tool-call-no-usage.sse"),
                "text/event-stream",
                OPENAI_FORMAT);
        assertModel("gpt-4.1-2025-04-14", fixture("openai/responses-stream.sse"), "text/event-stream", OPENAI_FORMAT);
        assertModel(
                "llama-3.3-70b-versatile",
                fixture("compatible/groq-stream.sse"),
                "text/event-stream",
                List.of("openai-compatible"));
    }

    @Test
    void anthropicNamesItsModelInTheMessageAndInMessageStart() {
        assertModel(
                "claude-sonnet-4-5-20250929",
                fixture("anthropic/message.json"),
                "application/json",
                List.of("anthropic"));
        assertModel(
                "claude-sonnet-4-5-20250929",
                fixture("anthropic/stream.sse"),
                "text/event-stream",
                List.of("anthropic"));
        assertModel(
                "claude-haiku-4-5",
                fixture("anthropic/stream-thinking-crlf.sse"),
                "text/event-stream",
                List.of("anthropic"));
        assertModel(
                "claude-opus-4-1-20250805",
                fixture("anthropic/stream-overloaded.sse"),
                "text/event-stream",
                List.of("anthropic"));
    }

    @Test
    void geminiNamesItsModelVersionInEachAnswer() {
        List<String> google = List.of("gemini", "vertex-ai");
        assertModel("gemini-2.5-pro", fixture("gemini/response.json"), "application/json", google);
        assertModel("gemini-2.5-flash", fixture("gemini/stream-array.json"), "application/json", google);
        assertModel("gemini-2.5-flash", fixture("gemini/stream.sse"), "text/event-stream", google);
        assertModel("gemini-2.5-flash", fixture("gemini/stream.sse"), null, google); // sniffed
        assertModel("gemini-2.5-flash", fixture("gemini/stream-unavailable.sse"), "text/event-stream", google);
    }

    @Test
    void anAnswerThatNamesNoModelLeavesItUnknown() {
        byte[] json = "{\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}"
                .getBytes(StandardCharsets.UTF_8);
        assertModel(null, json, "application/json", OPENAI_FORMAT);
        assertModel(null, "{\"model\":\"\"}".getBytes(StandardCharsets.UTF_8), "application/json", OPENAI_FORMAT);
        byte[] anthropic = "{\"type\":\"message\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}"
                .getBytes(StandardCharsets.UTF_8);
        assertModel(null, anthropic, "application/json", List.of("anthropic"));
        byte[] gemini = "data: {\"candidates\":[],\"modelVersion\":42}\n\n".getBytes(StandardCharsets.UTF_8);
        assertModel(null, gemini, "text/event-stream", List.of("gemini"));
    }
}
