package dev.sluice.core.provider.bedrock;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.post;
import static dev.sluice.core.provider.ProviderFixtures.sameUsageAtEveryCut;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.provider.wire.ApiKeyIds;
import dev.sluice.core.retry.OutcomeClass;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.eventstream.HeaderValue;
import software.amazon.awssdk.eventstream.Message;

class BedrockAdapterTest {

    static final String HOST = "https://bedrock-runtime.us-east-1.amazonaws.com";
    static final String HAIKU = "anthropic.claude-3-haiku-20240307-v1:0";
    static final String HAIKU_PATH = "/model/anthropic.claude-3-haiku-20240307-v1%3A0";
    static final String SIGV4 =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261207/us-east-1/bedrock/aws4_request, "
                    + "SignedHeaders=amz-sdk-invocation-id;content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7";

    final BedrockAdapter adapter = new BedrockAdapter(() -> 0L);

    @Test
    void recognisesItsFourOperationsOnEveryRegionalHost() {
        assertThat(adapter.kind()).isEqualTo("bedrock");
        for (String host : new String[] {
            "bedrock-runtime.us-east-1.amazonaws.com",
            "bedrock-runtime.eu-central-2.amazonaws.com:443",
            "BEDROCK-RUNTIME.ap-southeast-2.amazonaws.com.",
            "bedrock-runtime-fips.us-west-2.amazonaws.com",
            "bedrock-runtime.cn-north-1.amazonaws.com.cn"
        }) {
            for (String op : new String[] {"converse", "converse-stream", "invoke", "invoke-with-response-stream"}) {
                assertThat(adapter.recognises(host, HAIKU_PATH + "/" + op))
                        .as(host + " " + op)
                        .isTrue();
            }
            assertThat(adapter.recognisesHost(host)).isTrue();
        }
        for (String path : new String[] {
            HAIKU_PATH + "/count-tokens",
            HAIKU_PATH + "/invoke-with-bidirectional-stream",
            "/async-invoke",
            "/guardrail/abc/version/1/apply",
            "/model//converse",
            "/model/a/b/converse",
            "/model/%zz/converse",
            "/converse"
        }) {
            assertThat(adapter.recognises("bedrock-runtime.us-east-1.amazonaws.com", path))
                    .as(path)
                    .isFalse();
        }
        for (String host : new String[] {
            "bedrock.us-east-1.amazonaws.com",
            "bedrock-runtime.amazonaws.com",
            "bedrock-runtime.us-east-1.example.com",
            "s3.us-east-1.amazonaws.com",
            "bedrock-runtime.us_east.1.amazonaws.com"
        }) {
            assertThat(adapter.recognisesHost(host)).as(host).isFalse();
        }
    }

    @Test
    void readsModelRegionAndTheHashedAccessKeyOfAConverseCall() {
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"" + "a".repeat(400) + "\"},"
                + "{\"image\":{\"format\":\"png\",\"source\":{\"bytes\":\"" + "Q".repeat(4000) + "\"}}}]}],"
                + "\"system\":[{\"text\":\"" + "b".repeat(40) + "\"}],"
                + "\"inferenceConfig\":{\"maxTokens\":512,\"temperature\":0.5}}";

        RequestFacts facts =
                adapter.readRequest(post(HOST + HAIKU_PATH + "/converse", body, "Authorization", SIGV4), ESTIMATOR);

        assertThat(facts.providerKind()).isEqualTo("bedrock");
        assertThat(facts.operation()).isEqualTo("converse");
        assertThat(facts.model()).isEqualTo(HAIKU);
        assertThat(facts.streaming()).isFalse();
        assertThat(facts.providerScope()).containsEntry("region", "us-east-1");
        assertThat(facts.apiKeyId()).isEqualTo(ApiKeyIds.of("AKIAIOSFODNN7EXAMPLE"));
        assertThat(facts.maxOutputTokens()).isEqualTo(512);
        // 440 characters of text, two parts (the message, the system block): the image is not text
        assertThat(facts.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens(HAIKU, 440, 2));
        long input = facts.estimatedInputTokens();
        assertThat(facts.providerCharge(Dimension.REQUESTS)).isEqualTo(1);
        assertThat(facts.providerCharge(Dimension.INPUT_TOKENS)).isEqualTo(input);
        assertThat(facts.providerCharge(Dimension.OUTPUT_TOKENS)).isEqualTo(512);
        assertThat(facts.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(input + 512);
        assertThat(adapter.truesUp(Dimension.TOTAL_TOKENS)).isTrue();
        assertThat(adapter.announcesLimits()).isFalse();
    }

    @Test
    void readsTheAnthropicBodyOfInvokeModelWithToolsAndToolResults() {
        String body = "{\"anthropic_version\":\"bedrock-2023-05-31\",\"max_tokens\":300,\"system\":\"" + "s".repeat(20)
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "u".repeat(80) + "\"},"
                + "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"get\",\"input\":{\"q\":1}}]},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\""
                + "r".repeat(40)
                + "\"}]}],\"tools\":[{\"name\":\"get\",\"input_schema\":{\"type\":\"object\"}}]}";

        RequestFacts facts = adapter.readRequest(
                post(HOST + HAIKU_PATH + "/invoke-with-response-stream", body, "Authorization", SIGV4), ESTIMATOR);

        assertThat(facts.operation()).isEqualTo("invoke-with-response-stream");
        assertThat(facts.streaming()).isTrue();
        assertThat(facts.maxOutputTokens()).isEqualTo(300);
        long chars = 20
                + 80
                + 3 /* "get" */
                + "{\"q\":1}".length()
                + 40
                + "{\"name\":\"get\",\"input_schema\":{\"type\":\"object\"}}".length();
        // system string, three messages, one tool
        assertThat(facts.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens(HAIKU, chars, 5));
    }

    @Test
    void converseCountsToolUseToolResultsAndToolDefinitions() {
        String tools = "{\"toolSpec\":{\"name\":\"top_song\",\"inputSchema\":{\"json\":{\"type\":\"object\"}}}}";
        String body =
                "{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"toolUse\":{\"toolUseId\":\"x\",\"name\":\"top_song\","
                        + "\"input\":{\"sign\":\"WZPZ\"}}}]},{\"role\":\"user\",\"content\":[{\"toolResult\":{\"toolUseId\":\"x\","
                        + "\"content\":[{\"json\":{\"song\":\"Elemental Hotel\"}},{\"text\":\"" + "t".repeat(12)
                        + "\"}]}}]}],"
                        + "\"toolConfig\":{\"tools\":[" + tools + "]}}";

        RequestFacts facts = adapter.readRequest(post(HOST + HAIKU_PATH + "/converse-stream", body), ESTIMATOR);

        long chars = "{\"sign\":\"WZPZ\"}".length() + "{\"song\":\"Elemental Hotel\"}".length() + 12 + tools.length();
        assertThat(facts.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens(HAIKU, chars, 3));
        assertThat(facts.maxOutputTokens()).isEqualTo(RequestFacts.NO_MAX);
        assertThat(facts.providerCharge(Dimension.OUTPUT_TOKENS)).isEqualTo(-1);
        assertThat(facts.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(-1);
        assertThat(facts.apiKeyId()).isNull();
    }

    @Test
    void theRegionComesFromTheSignatureWhenTheHostDoesNotSayIt() {
        RequestFacts facts = adapter.readRequest(
                post("http://127.0.0.1:8080" + HAIKU_PATH + "/converse", "{}", "Authorization", SIGV4), ESTIMATOR);
        assertThat(facts.providerScope()).containsEntry("region", "us-east-1");

        RequestFacts bearer = adapter.readRequest(
                post(
                        HOST
                                + "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-haiku-20240307-v1%3A0/converse",
                        "{}",
                        "Authorization",
                        "Bearer ABSKQmVkcm9ja0FQSUtleQ"),
                ESTIMATOR);
        assertThat(bearer.apiKeyId()).isEqualTo(ApiKeyIds.of("ABSKQmVkcm9ja0FQSUtleQ"));
        assertThat(bearer.model())
                .isEqualTo(
                        "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0");
    }

    @Test
    void credentialScopePartsAreReadOnlyFromSigV4() {
        assertThat(BedrockAdapter.credentialPart(SIGV4, 0)).isEqualTo("AKIAIOSFODNN7EXAMPLE");
        assertThat(BedrockAdapter.credentialPart(SIGV4, 2)).isEqualTo("us-east-1");
        assertThat(BedrockAdapter.credentialPart("AWS4-HMAC-SHA256 SignedHeaders=host", 0))
                .isNull();
        assertThat(BedrockAdapter.credentialPart("Bearer AKIA/x/y", 0)).isNull();
        assertThat(BedrockAdapter.credentialPart("AWS4-HMAC-SHA256 Credential=/", 0))
                .isNull();
        assertThat(BedrockAdapter.credentialPart(null, 0)).isNull();
    }

    @Test
    void usageOfAConverseAnswerIncludingTheCache() {
        RequestFacts facts = converseFacts();
        byte[] answer = utf8("{\"output\":{\"message\":{\"role\":\"assistant\",\"content\":[{\"text\":\"Hello\"}]}},"
                + "\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":30,\"outputTokens\":12,\"totalTokens\":142,"
                + "\"cacheReadInputTokens\":80,\"cacheWriteInputTokens\":20},\"metrics\":{\"latencyMs\":412}}");

        Usage usage = sameUsageAtEveryCut(
                () -> adapter.usageParser(facts, headers("content-type", "application/json"), ESTIMATOR), answer);

        assertThat(usage.inputTokens()).isEqualTo(50);
        assertThat(usage.outputTokens()).isEqualTo(12);
        assertThat(usage.cachedInputTokens()).isEqualTo(80);
        assertThat(usage.cacheCreationInputTokens()).isEqualTo(20);
        assertThat(usage.reportedByProvider()).isTrue();
    }

    @Test
    void usageOfInvokeModelFromItsHeadersWithoutReadingTheBody() {
        Headers h = headers(
                "content-type", "application/json",
                "x-amzn-bedrock-input-token-count", "25",
                "x-amzn-bedrock-output-token-count", "7",
                "x-amzn-bedrock-cache-read-input-token-count", "3");
        var parser = adapter.usageParser(converseFacts(), h, ESTIMATOR);
        parser.accept(utf8("not json at all"), 0, 15);
        parser.finish();

        assertThat(parser.usage().inputTokens()).isEqualTo(25);
        assertThat(parser.usage().outputTokens()).isEqualTo(7);
        assertThat(parser.usage().cachedInputTokens()).isEqualTo(3);
        assertThat(parser.usage().reportedByProvider()).isTrue();
    }

    @Test
    void usageOfAnAnthropicBodyWithoutHeaders() {
        byte[] answer = utf8("{\"id\":\"msg_1\",\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}],"
                + "\"usage\":{\"input_tokens\":14,\"output_tokens\":4,\"cache_creation_input_tokens\":2}}");
        Usage usage =
                sameUsageAtEveryCut(() -> adapter.usageParser(converseFacts(), Headers.empty(), ESTIMATOR), answer);
        assertThat(usage.inputTokens()).isEqualTo(16);
        assertThat(usage.outputTokens()).isEqualTo(4);
    }

    @Test
    void usageOfAConverseStreamFromItsMetadataEventAtAnyCut() {
        byte[] stream = concat(
                event("messageStart", "{\"role\":\"assistant\",\"p\":\"abcdefgh\"}"),
                event(
                        "contentBlockDelta",
                        "{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hello there\"},\"p\":\"ab\"}"),
                event("contentBlockStop", "{\"contentBlockIndex\":0}"),
                event("messageStop", "{\"stopReason\":\"end_turn\"}"),
                event(
                        "metadata",
                        "{\"usage\":{\"inputTokens\":21,\"outputTokens\":9,\"totalTokens\":30},"
                                + "\"metrics\":{\"latencyMs\":300},\"p\":\"abcdefghijklmnop\"}"));
        RequestFacts facts = streamFacts();

        Usage usage = sameUsageAtEveryCut(
                () -> adapter.usageParser(
                        facts, headers("content-type", "application/vnd.amazon.eventstream"), ESTIMATOR),
                stream);

        assertThat(usage.inputTokens()).isEqualTo(21);
        assertThat(usage.outputTokens()).isEqualTo(9);
        assertThat(usage.reportedByProvider()).isTrue();
    }

    @Test
    void aConverseStreamCutBeforeItsMetadataCountsWhatItProduced() {
        byte[] stream = concat(
                event("messageStart", "{\"role\":\"assistant\"}"),
                event("contentBlockDelta", "{\"delta\":{\"text\":\"" + "w".repeat(400) + "\"}}"));
        var parser = adapter.usageParser(
                streamFacts(), headers("content-type", "application/vnd.amazon.eventstream"), ESTIMATOR);
        parser.accept(stream, 0, stream.length - 3); // the last message never completes
        parser.accept(stream, 0, 0);
        parser.finish();
        // the cut delta is not counted: only whole, checked messages are read
        assertThat(parser.usage().reportedByProvider()).isFalse();
        assertThat(parser.usage().inputTokens()).isEqualTo(streamFacts().estimatedInputTokens());

        var whole = adapter.usageParser(
                streamFacts(), headers("content-type", "application/vnd.amazon.eventstream"), ESTIMATOR);
        whole.accept(stream, 0, stream.length);
        whole.finish();
        assertThat(whole.usage().outputTokens()).isEqualTo(100);
        assertThat(whole.usage().reportedByProvider()).isFalse();
    }

    @Test
    void usageOfInvokeModelWithResponseStreamFromItsInvocationMetrics() {
        byte[] stream = concat(
                chunk("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":33,\"output_tokens\":1}}}"),
                chunk("{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi!\"}}"),
                chunk("{\"type\":\"message_delta\",\"usage\":{\"output_tokens\":6}}"),
                chunk("{\"type\":\"message_stop\",\"amazon-bedrock-invocationMetrics\":{\"inputTokenCount\":33,"
                        + "\"outputTokenCount\":6,\"invocationLatency\":500,\"firstByteLatency\":200}}"));

        Usage usage = sameUsageAtEveryCut(
                () -> adapter.usageParser(
                        streamFacts(), headers("content-type", "application/vnd.amazon.eventstream"), ESTIMATOR),
                stream);

        assertThat(usage.inputTokens()).isEqualTo(33);
        assertThat(usage.outputTokens()).isEqualTo(6);
        assertThat(usage.reportedByProvider()).isTrue();
    }

    @Test
    void anExceptionInsideTheStreamIsAStreamError() {
        Map<String, HeaderValue> h = new LinkedHashMap<>();
        h.put(":exception-type", HeaderValue.fromString("throttlingException"));
        h.put(":content-type", HeaderValue.fromString("application/json"));
        h.put(":message-type", HeaderValue.fromString("exception"));
        byte[] stream = concat(
                event("messageStart", "{\"role\":\"assistant\"}"),
                frame(h, "{\"message\":\"Too many tokens, please wait before trying again.\"}"));

        var parser = adapter.usageParser(streamFacts(), Headers.empty(), ESTIMATOR);
        parser.accept(stream, 0, stream.length);
        parser.finish();

        ProviderError error = parser.streamError();
        assertThat(error.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(error.limiter()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(error.type()).isEqualTo("throttlingException");
    }

    @Test
    void classifiesBedrocksErrors() {
        assertThat(classify(
                        429,
                        "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                        "{\"message\":\"Too many requests, please wait before trying again.\"}"))
                .extracting(ProviderError::outcome, ProviderError::limiter, ProviderError::type)
                .containsExactly(OutcomeClass.RETRYABLE_CAPACITY, Dimension.REQUESTS, "ThrottlingException");
        assertThat(classify(
                                429,
                                null,
                                "{\"__type\":\"com.amazon.bedrock#ThrottlingException\",\"message\":\"Too many tokens\"}")
                        .limiter())
                .isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(classify(429, "ModelNotReadyException", "{}").outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(503, "ServiceUnavailableException", "{}").outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(500, "InternalServerException", "{}").outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(408, "ModelTimeoutException", "{}").outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(400, "ServiceQuotaExceededException", "{}").outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(classify(400, "ValidationException", "{\"message\":\"bad\"}").outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(classify(424, "ModelErrorException", "{}").outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(classify(502, null, "<html>bad gateway</html>").outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(adapter.classifyError(429, headers("x-should-retry", "false"), utf8("{}"), 0)
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(adapter.classifyError(429, headers("retry-after-ms", "1500"), utf8("{}"), 0)
                        .retryAfterMillis())
                .isEqualTo(1500);
    }

    @Test
    void aLocalRejectionIsBedrocksThrottlingExceptionWithTheDecision() {
        Rejection rejection = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.TOTAL_TOKENS)
                .scope("bedrock/k_abc123/us-east-1/" + HAIKU)
                .retryAfterMillis(2400)
                .build();

        LocalAnswer answer = adapter.localRejection(rejection, converseFacts());

        assertThat(answer.status()).isEqualTo(429);
        assertThat(answer.headers().get("x-amzn-errortype").get(0)).startsWith("ThrottlingException:");
        assertThat(answer.headers()).containsKeys("x-amzn-requestid", "x-sluice-decision", "retry-after");
        Map<String, String> body =
                JsonFields.pick(answer.body(), "message", "sluice.gateway_decision", "sluice.limiter");
        assertThat(body.get("message")).endsWith("Please try again in 2.4 seconds.");
        assertThat(body)
                .containsEntry("sluice.gateway_decision", "rejected_locally")
                .containsEntry("sluice.limiter", "total_tokens");
        // what Sluice answers, Sluice reads as Bedrock's throttling, never retried by a second hop
        ProviderError read = adapter.classifyError(429, Headers.of(answer.headers()), answer.body(), 0);
        assertThat(read.type()).isEqualTo("ThrottlingException");
        assertThat(read.outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
    }

    @Test
    void aSpentBudgetIsBedrocksServiceQuotaExceeded() {
        Rejection rejection = Rejection.builder(GatewayDecision.BUDGET_EXHAUSTED)
                .limiter(Dimension.SPEND)
                .build();

        LocalAnswer answer = adapter.localRejection(rejection, converseFacts());

        assertThat(answer.status()).isEqualTo(429);
        assertThat(answer.headers().get("x-amzn-errortype").get(0)).startsWith("ServiceQuotaExceededException:");
        assertThat(adapter.classifyError(429, Headers.of(answer.headers()), answer.body(), 0)
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
    }

    private ProviderError classify(int status, String errorType, String body) {
        Headers h = errorType == null ? Headers.empty() : headers("x-amzn-ErrorType", errorType);
        return adapter.classifyError(status, h, utf8(body), 0);
    }

    private RequestFacts converseFacts() {
        return adapter.readRequest(
                post(HOST + HAIKU_PATH + "/converse", "{\"inferenceConfig\":{\"maxTokens\":50}}"), ESTIMATOR);
    }

    private RequestFacts streamFacts() {
        return adapter.readRequest(
                post(
                        HOST + HAIKU_PATH + "/converse-stream",
                        "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"hi\"}]}]}"),
                ESTIMATOR);
    }

    static byte[] event(String type, String payload) {
        Map<String, HeaderValue> h = new LinkedHashMap<>();
        h.put(":event-type", HeaderValue.fromString(type));
        h.put(":content-type", HeaderValue.fromString("application/json"));
        h.put(":message-type", HeaderValue.fromString("event"));
        return frame(h, payload);
    }

    static byte[] chunk(String modelEvent) {
        String bytes = Base64.getEncoder().encodeToString(modelEvent.getBytes(StandardCharsets.UTF_8));
        return event("chunk", "{\"bytes\":\"" + bytes + "\",\"p\":\"abcd\"}");
    }

    static byte[] frame(Map<String, HeaderValue> headers, String payload) {
        ByteBuffer b = new Message(headers, payload.getBytes(StandardCharsets.UTF_8)).toByteBuffer();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
