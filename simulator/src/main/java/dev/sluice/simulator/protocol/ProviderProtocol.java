package dev.sluice.simulator.protocol;

import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.limit.Admission;
import dev.sluice.simulator.limit.LimitStatus;
import dev.sluice.simulator.limit.ScopeKeys;
import java.util.List;
import java.util.Map;

/**
 * One provider's wire protocol and admission rules: how it reads a request, how much it charges
 * each limit at admission, and how it answers (success bodies and streams, rate-limit headers,
 * 429s, overload, other errors) byte for byte as the provider does.
 */
public interface ProviderProtocol {

    /** The path an SDK's base URL needs after the host ("/v1" for OpenAI, "" for Anthropic). */
    String sdkBasePath();

    /** The API key of a request ("" when none was sent). */
    String apiKey(ProviderRequest request);

    /** Reads a request into a model call, or an error answer (404, 400). */
    Parsed parse(ProviderRequest request);

    /** Largest request body accepted before anything else is looked at. */
    default long maxBodyBytes() {
        return 32L * 1024 * 1024;
    }

    /** The answer to a body larger than {@link #maxBodyBytes()}. */
    default Reply bodyTooLarge(long size) {
        return forced(FaultKind.BAD_REQUEST, null, null);
    }

    /** The limits this provider enforces when none are configured. */
    List<Limit> defaultLimits();

    /** The algorithm of a limit configured without one. */
    default Algorithm defaultAlgorithm() {
        return Algorithm.TOKEN_BUCKET;
    }

    /** Adapts configured limits to how the provider counts (Azure: requests over 10 s...). */
    default List<Limit> adapt(List<Limit> limits) {
        return limits;
    }

    /** What a call is charged per dimension at admission. */
    Map<Dimension, Long> demand(ModelCall call);

    /** What is given back when the response has ended (Anthropic output true-up). */
    default Map<Dimension, Long> settlement(ModelCall call) {
        return Map.of();
    }

    /** Called once a call has passed the limits (Anthropic warms its prompt cache). */
    default void admitted(ModelCall call) {}

    /** Forgets per-key state such as prompt caches (admin reset). */
    default void reset() {}

    /**
     * The response header naming the organization a request was counted against ({@code
     * openai-organization}), or null when the provider sends none.
     */
    default String organizationHeader() {
        return null;
    }

    /** The organization of an API key nobody mapped, when each key is its own (OpenAI-style id). */
    default String organizationOf(String apiKey) {
        return "org-" + Ids.digest(apiKey, 24);
    }

    /** Whether requests that are refused still count against the request limits (OpenAI). */
    default boolean countsRefusedRequests() {
        return false;
    }

    /** The successful answer, paced, ending as asked. */
    Reply success(ModelCall call, List<LimitStatus> statuses, Pacing pacing, Ending ending);

    /** The 429 for a request a limit refused. */
    Reply rateLimited(ModelCall call, Admission admission, ScopeKeys keys);

    /** A 429 for a rate that grew too fast (an acceleration limit); by default the profile's forced 429. */
    default Reply accelerationLimited(ModelCall call, ScopeKeys keys) {
        return forced(dev.sluice.simulator.fault.FaultKind.RATE_LIMITED, call, keys);
    }

    /** The overloaded answer (503/529). */
    Reply overloaded(ModelCall call);

    /** A forced answer of kind stage {@link FaultKind.Stage#ANSWER}; {@code call} may be null. */
    Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys);

    /** Rate-limit headers with garbage values, for the malformed-headers fault. */
    Map<String, String> malformedHeaders();
}
