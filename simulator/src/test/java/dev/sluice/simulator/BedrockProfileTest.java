package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.simulator.profile.bedrock.EventStreamEncoder;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.eventstream.Message;
import software.amazon.awssdk.eventstream.MessageDecoder;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamResponseHandler;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelRequest;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelResponse;
import software.amazon.awssdk.services.bedrockruntime.model.Message.Builder;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;
import software.amazon.awssdk.services.bedrockruntime.model.TokenUsage;

/** The real AWS SDK for Java (Apache and Netty clients) reads what the Bedrock profile answers. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BedrockProfileTest {

    static final String MODEL = "anthropic.claude-3-haiku-20240307-v1:0";

    private final FakeClock clock = new FakeClock();
    private final Simulator sim = Simulator.builder()
            .clock(clock)
            .profile(Profile.BEDROCK)
            .limit(Limit.of(Dimension.REQUESTS, 3, Duration.ofSeconds(1)).scope(Scope.API_KEY_AND_MODEL))
            .instant()
            .start();

    @BeforeEach
    void reset() {
        sim.reset();
    }

    @AfterAll
    void close() {
        sim.close();
    }

    private BedrockRuntimeClient client(String accessKey) {
        return BedrockRuntimeClient.builder()
                .region(Region.US_EAST_1)
                .endpointOverride(URI.create(sim.baseUrl()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, "secret")))
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    static ConverseRequest converse(int maxTokens) {
        Builder message = software.amazon.awssdk.services.bedrockruntime.model.Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText("w".repeat(80)));
        return ConverseRequest.builder()
                .modelId(MODEL)
                .messages(message.build())
                .inferenceConfig(c -> c.maxTokens(maxTokens))
                .build();
    }

    @Test
    void theEncoderWritesTheFormatsOwnVectors() {
        assertThat(hex(EventStreamEncoder.message(Map.of(), new byte[0])))
                .isEqualTo("000000100000000005c248eb7d98c8ff");
        Map<String, String> one = new LinkedHashMap<>();
        one.put("content-type", "application/json");
        assertThat(hex(EventStreamEncoder.message(one, "{'foo':'bar'}".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("0000003d0000002007fd83960c636f6e74656e742d747970650700106170706c69636174"
                        + "696f6e2f6a736f6e7b27666f6f273a27626172277d8d9c08b1");
    }

    @Test
    void aConverseStreamIsFramesTheSdksDecoderReadsAtAnyCut() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(sim.baseUrl() + "/model/" + MODEL.replace(":", "%3A") + "/converse-stream"))
                .header(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=AKIDSTREAM/20261207/us-east-1/bedrock/aws4_request")
                .POST(
                        HttpRequest.BodyPublishers.ofString(
                                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"hello there\"}]}],\"inferenceConfig\":{\"maxTokens\":5}}"))
                .build();
        HttpResponse<byte[]> r = Http.CLIENT.send(request, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.headers().firstValue("content-type")).hasValue("application/vnd.amazon.eventstream");
        byte[] body = r.body();

        for (int cut = 0; cut <= body.length; cut += 7) {
            List<Message> messages = new ArrayList<>();
            MessageDecoder decoder = new MessageDecoder(messages::add);
            decoder.feed(body, 0, cut);
            decoder.feed(body, cut, body.length - cut);
            assertThat(messages).hasSize(9); // start, 5 deltas, block stop, message stop, metadata
            Message last = messages.get(8);
            assertThat(last.getHeaders().get(":event-type").getString()).isEqualTo("metadata");
            assertThat(new String(last.getPayload(), StandardCharsets.UTF_8))
                    .contains("\"usage\":{\"inputTokens\":3,\"outputTokens\":5,\"totalTokens\":8}");
        }
    }

    @Test
    void theSyncSdkOnApacheReadsConverseAndInvokeModel() {
        try (BedrockRuntimeClient client = client("AKIDSYNC")) {
            ConverseResponse r = client.converse(converse(7));
            assertThat(r.output().message().content().get(0).text().split(" ")).hasSize(7);
            assertThat(r.usage().inputTokens()).isEqualTo(20);
            assertThat(r.usage().outputTokens()).isEqualTo(7);
            assertThat(r.stopReasonAsString()).isEqualTo("max_tokens");

            InvokeModelResponse invoked = client.invokeModel(InvokeModelRequest.builder()
                    .modelId(MODEL)
                    .body(SdkBytes.fromUtf8String("{\"anthropic_version\":\"bedrock-2023-05-31\",\"max_tokens\":4,"
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"" + "q".repeat(40) + "\"}]}"))
                    .build());
            assertThat(invoked.body().asUtf8String()).contains("\"usage\":{\"input_tokens\":10,\"output_tokens\":4}");
            assertThat(invoked.sdkHttpResponse().firstMatchingHeader("x-amzn-bedrock-input-token-count"))
                    .hasValue("10");
            assertThat(invoked.sdkHttpResponse().firstMatchingHeader("x-amzn-bedrock-output-token-count"))
                    .hasValue("4");
        }
    }

    @Test
    void aRefusalIsTheSdksThrottlingExceptionPerAccessKeyAndModel() {
        try (BedrockRuntimeClient client = client("AKIDLIMITED");
                BedrockRuntimeClient other = client("AKIDOTHER")) {
            for (int i = 0; i < 3; i++) {
                client.converse(converse(2));
            }
            ThrottlingException e = catchThrowableOfType(ThrottlingException.class, () -> client.converse(converse(2)));
            assertThat(e.statusCode()).isEqualTo(429);
            assertThat(e.awsErrorDetails().errorMessage())
                    .isEqualTo("Too many requests, please wait before trying again.");
            assertThat(e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("retry-after"))
                    .isEmpty();
            assertThat(other.converse(converse(2)).usage().outputTokens())
                    .as("another account's quota")
                    .isEqualTo(2);
        }
    }

    @Test
    void theAsyncSdkOnNettyReadsAConverseStream() throws Exception {
        try (BedrockRuntimeAsyncClient client = BedrockRuntimeAsyncClient.builder()
                .region(Region.US_EAST_1)
                .endpointOverride(URI.create(sim.baseUrl()))
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDASYNC", "secret")))
                // the SDK asks Netty for HTTP/2 for Bedrock Runtime; the simulator speaks HTTP/1.1 in clear
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1))
                .build()) {
            List<String> texts = new CopyOnWriteArrayList<>();
            AtomicReference<TokenUsage> usage = new AtomicReference<>();
            ConverseStreamResponseHandler handler = ConverseStreamResponseHandler.builder()
                    .subscriber(ConverseStreamResponseHandler.Visitor.builder()
                            .onContentBlockDelta(d -> texts.add(d.delta().text()))
                            .onMetadata(m -> usage.set(m.usage()))
                            .build())
                    .build();
            ConverseRequest c = converse(6);
            client.converseStream(
                            ConverseStreamRequest.builder()
                                    .modelId(c.modelId())
                                    .messages(c.messages())
                                    .inferenceConfig(c.inferenceConfig())
                                    .build(),
                            handler)
                    .get(10, TimeUnit.SECONDS);

            assertThat(texts).hasSize(6);
            assertThat(usage.get().inputTokens()).isEqualTo(20);
            assertThat(usage.get().outputTokens()).isEqualTo(6);
        }
    }

    @Test
    void anInvokeModelStreamCarriesTheModelsEventsAndInvocationMetrics() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(sim.baseUrl() + "/model/" + MODEL + "/invoke-with-response-stream"))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"anthropic_version\":\"bedrock-2023-05-31\",\"max_tokens\":3,"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build();
        byte[] body = Http.CLIENT
                .send(request, HttpResponse.BodyHandlers.ofByteArray())
                .body();
        List<Message> messages =
                new MessageDecoder().feed(java.nio.ByteBuffer.wrap(body)).getDecodedMessages();
        String lastChunk = new String(messages.get(messages.size() - 1).getPayload(), StandardCharsets.UTF_8);
        String bytes = lastChunk.substring(lastChunk.indexOf("\"bytes\":\"") + 9, lastChunk.indexOf("\",\"p\""));
        assertThat(new String(Base64.getDecoder().decode(bytes), StandardCharsets.UTF_8))
                .contains("\"type\":\"message_stop\"")
                .contains("\"amazon-bedrock-invocationMetrics\":{\"inputTokenCount\":1,\"outputTokenCount\":3");
    }

    private static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (byte b : bytes) {
            s.append(String.format("%02x", b));
        }
        return s.toString();
    }
}
