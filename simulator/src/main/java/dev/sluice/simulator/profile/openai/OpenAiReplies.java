package dev.sluice.simulator.profile.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.limit.ScopeKeys;
import dev.sluice.simulator.protocol.Ending;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.ModelCall;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.ProtocolSettings;
import dev.sluice.simulator.protocol.Reply;

/**
 * Answers shared by every OpenAI-shaped API (OpenAI, Azure OpenAI, OpenAI-compatible gateways):
 * paced success bodies and streams for both operations, and the forced error answers.
 */
public final class OpenAiReplies {
    private OpenAiReplies() {}

    public static Reply success(ModelCall call, ProtocolSettings settings, Pacing pacing, Ending ending) {
        long created = settings.clock().instant().getEpochSecond();
        boolean responses = ResponsesFormat.OPERATION.equals(call.operation());
        if (call.stream()) {
            ObjectNode error = overloadedError(responses);
            return responses
                    ? ResponsesFormat.stream(Reply.eventStream(), call, created, pacing, ending, error)
                    : ChatCompletionsFormat.stream(Reply.eventStream(), call, created, pacing, ending, error);
        }
        ObjectNode body = responses ? ResponsesFormat.body(call, created) : ChatCompletionsFormat.body(call, created);
        return Reply.whole(Json.bytes(body), pacing.total(call.outputTokens()), ending);
    }

    // Chat streams carry the error object as a data chunk; Responses streams in response.failed.
    private static ObjectNode overloadedError(boolean responses) {
        if (responses) {
            ObjectNode error = Json.object();
            error.put("code", "server_is_overloaded");
            error.put("message", "The server is overloaded or not ready yet.");
            return error;
        }
        return OpenAiErrors.body("The server is overloaded or not ready yet.", "server_error", "server_is_overloaded");
    }

    public static Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys) {
        String model = call == null ? "gpt-4o-mini" : call.model();
        String org = keys == null ? "org-default" : keys.organization();
        switch (kind) {
            case RATE_LIMITED:
                return OpenAiErrors.reply(
                                429,
                                "Rate limit reached for " + model + " in organization " + org
                                        + " on requests per min (RPM): Limit 1, Used 1, Requested 1."
                                        + " Please try again in 1s."
                                        + " Visit https://platform.openai.com/account/rate-limits to learn more.",
                                "requests",
                                "rate_limit_exceeded")
                        .header("retry-after", "1")
                        .header("retry-after-ms", "1000");
            case INSUFFICIENT_QUOTA:
                return OpenAiErrors.insufficientQuota();
            case BUDGET_EXCEEDED:
                return OpenAiErrors.reply(
                        402, "Daily spend cap reached for this organization.", "budget_exceeded", "budget_exceeded");
            case NO_ENDPOINT_FOR_POLICY:
                return OpenAiErrors.reply(
                        409,
                        "No endpoint satisfies the data residency policy of this request.",
                        "no_endpoint_for_policy",
                        "no_endpoint_for_policy");
            case BAD_REQUEST:
                return OpenAiErrors.badRequest();
            case SERVER_ERROR:
                return OpenAiErrors.serverError();
            default:
                throw new IllegalArgumentException("not an answer: " + kind);
        }
    }
}
