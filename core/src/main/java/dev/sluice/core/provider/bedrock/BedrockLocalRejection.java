package dev.sluice.core.provider.bedrock;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.wire.LocalRejectionWriter;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A local rejection in Bedrock's own throttling shape, so the AWS SDK raises its usual
 * {@code ThrottlingException} (status 429): the error type in {@code x-amzn-ErrorType}, which the
 * SDK's JSON protocol reads first, a request id in {@code x-amzn-RequestId}, and the body
 * {@code {"message": "...", "sluice": {...}}}. A spent budget is Bedrock's
 * {@code ServiceQuotaExceededException} instead (same status): waiting does not refill it, and
 * the application can tell it from a pace.
 *
 * <p>Where {@code sluice} sits was checked against the AWS SDK for Java 2.59 (see {@code
 * BedrockSdkTest}): the modelled exception keeps only the message, but
 * {@code awsErrorDetails().rawResponse()} is the whole body and
 * {@code awsErrorDetails().sdkHttpResponse()} has every header, {@code x-sluice-decision} among
 * them. The SDK's own retry strategy stands aside for governed calls (the AWS SDK
 * instrumentation), so the rejection reaches the application after one attempt.
 */
final class BedrockLocalRejection {

    private static final String NAMESPACE = ":http://internal.amazon.com/coral/com.amazon.bedrock/";
    /** Bedrock's error type header value for throttling, as it sends it. */
    static final String ERROR_TYPE = BedrockErrors.THROTTLING + NAMESPACE;
    /** The error type of a spent budget. */
    static final String BUDGET_ERROR_TYPE = "ServiceQuotaExceededException" + NAMESPACE;

    private BedrockLocalRejection() {}

    static LocalAnswer answer(Rejection rejection, RequestFacts facts) {
        LocalAnswer plain = LocalRejectionWriter.answer(rejection, facts, BedrockLocalRejection::envelope);
        Map<String, List<String>> headers = new LinkedHashMap<>(plain.headers());
        boolean budget = rejection != null && rejection.decision() == GatewayDecision.BUDGET_EXHAUSTED;
        headers.put("x-amzn-errortype", List.of(budget ? BUDGET_ERROR_TYPE : ERROR_TYPE));
        headers.put("x-amzn-requestid", List.of(UUID.randomUUID().toString()));
        return LocalAnswer.of(plain.status(), headers, plain.body());
    }

    private static void envelope(JsonGenerator json, Rejection r, RequestFacts facts) throws IOException {
        json.writeStartObject();
        json.writeStringField("message", LocalRejectionWriter.summaryWithWait(r, facts));
        LocalRejectionWriter.writeSluiceField(json, r, facts);
        json.writeEndObject();
    }
}
