package dev.sluice.core.provider.bedrock;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.LoopbackServer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.provider.wire.ApiKeyIds;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.SystemContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;

/**
 * The real AWS SDK for Java 2.59 (bedrockruntime) against a loopback server: the request it signs
 * and sends is one the adapter reads (model, region, key id, prompt, maximum), and a local
 * rejection surfaces as the SDK's own {@code ThrottlingException} with the decision readable.
 * Without the agent the SDK's standard retry strategy still retries throttling (three attempts):
 * standing it aside is the AWS SDK instrumentation's work, proved by {@code BedrockIT}.
 */
class BedrockSdkTest {

    static final String MODEL = "anthropic.claude-3-haiku-20240307-v1:0";
    static final String ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE";

    final BedrockAdapter adapter = new BedrockAdapter(() -> 0L);

    static BedrockRuntimeClient client(LoopbackServer server) {
        return BedrockRuntimeClient.builder()
                .region(Region.US_WEST_2)
                .endpointOverride(URI.create(server.origin()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, "secret")))
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD))
                .build();
    }

    static ConverseRequest converse() {
        return ConverseRequest.builder()
                .modelId(MODEL)
                .system(SystemContentBlock.fromText("Be brief."))
                .messages(Message.builder()
                        .role(ConversationRole.USER)
                        .content(ContentBlock.fromText("Weather in Paris?"))
                        .build())
                .inferenceConfig(c -> c.maxTokens(256))
                .build();
    }

    @Test
    void theSdksSignedConverseRequestReadsAsBedrocks() throws Exception {
        String answer = "{\"output\":{\"message\":{\"role\":\"assistant\",\"content\":[{\"text\":\"Sunny.\"}]}},"
                + "\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":12,\"outputTokens\":3,\"totalTokens\":15},"
                + "\"metrics\":{\"latencyMs\":10}}";
        try (LoopbackServer server = new LoopbackServer(
                        200, Map.of("content-type", List.of("application/json")), answer.getBytes());
                BedrockRuntimeClient client = client(server)) {
            String text = client.converse(converse())
                    .output()
                    .message()
                    .content()
                    .get(0)
                    .text();
            assertThat(text).isEqualTo("Sunny.");

            RequestFacts facts = adapter.readRequest(server.seen.get(0).asRequest(server.origin()), ESTIMATOR);
            assertThat(server.seen.get(0).path).isEqualTo("/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse");
            assertThat(facts.model()).isEqualTo(MODEL);
            assertThat(facts.operation()).isEqualTo("converse");
            assertThat(facts.providerScope()).containsEntry("region", "us-west-2"); // from the signature
            assertThat(facts.apiKeyId()).isEqualTo(ApiKeyIds.of(ACCESS_KEY));
            assertThat(facts.maxOutputTokens()).isEqualTo(256);
            long chars = "Be brief.".length() + "Weather in Paris?".length();
            assertThat(facts.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens(MODEL, chars, 2));
        }
    }

    @Test
    void aLocalRejectionRaisesTheSdksThrottlingExceptionWithTheDecisionReadable() throws Exception {
        Rejection rejection = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.REQUESTS)
                .scope("bedrock/k_abc123/us-west-2/" + MODEL)
                .retryAfterMillis(1200)
                .build();
        LocalAnswer answer = adapter.localRejection(rejection, null);
        try (LoopbackServer server = new LoopbackServer(answer);
                BedrockRuntimeClient client = client(server)) {
            ThrottlingException e = catchThrowableOfType(ThrottlingException.class, () -> client.converse(converse()));

            assertThat(e.statusCode()).isEqualTo(429);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
            assertThat(e.awsErrorDetails().errorMessage()).endsWith("Please try again in 1.2 seconds.");
            assertThat(e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-sluice-decision"))
                    .contains("rejected_locally");
            Map<String, String> sluice = JsonFields.pick(
                    e.awsErrorDetails().rawResponse().asByteArray(), "sluice.gateway_decision", "sluice.limiter");
            assertThat(sluice)
                    .containsEntry("sluice.gateway_decision", "rejected_locally")
                    .containsEntry("sluice.limiter", "requests");
            assertThat(server.hits.get())
                    .as("the SDK's own retries, left alone here")
                    .isEqualTo(3);
        }
    }
}
