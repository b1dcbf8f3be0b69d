package dev.sluice.core.provider;

import dev.sluice.config.Dimension;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an adapter read from a request: enough to identify, estimate and admit it. Immutable.
 */
public final class RequestFacts {

    /** Value of {@link #maxOutputTokens()} when the request sets no maximum. */
    public static final long NO_MAX = -1;

    private final String providerKind;
    private final String operation;
    private final String model;
    private final String deployment;
    private final boolean streaming;
    private final boolean streamUsageRequested;
    private final long maxOutputTokens;
    private final long estimatedInputTokens;
    private final String serviceTier;
    private final String apiKeyId;
    private final Map<String, String> providerScope;
    /** By {@link Dimension#ordinal()}; -1 where the adapter has no rule. */
    private final long[] providerCharges;

    private RequestFacts(Builder b) {
        this.providerKind = b.providerKind;
        this.operation = b.operation;
        this.model = b.model;
        this.deployment = b.deployment;
        this.streaming = b.streaming;
        this.streamUsageRequested = b.streamUsageRequested;
        this.maxOutputTokens = b.maxOutputTokens;
        this.estimatedInputTokens = b.estimatedInputTokens;
        this.serviceTier = b.serviceTier;
        this.apiKeyId = b.apiKeyId;
        this.providerScope = b.providerScope == null
                ? Collections.emptyMap()
                : Collections.unmodifiableMap(new LinkedHashMap<>(b.providerScope));
        this.providerCharges = b.providerCharges.clone();
    }

    public static Builder builder(String providerKind) {
        return new Builder(providerKind);
    }

    /** The adapter kind that read the request: {@code openai}, {@code azure-openai}, ... */
    public String providerKind() {
        return providerKind;
    }

    /** What the request does: {@code chat.completions}, {@code responses}, {@code messages}, ... */
    public String operation() {
        return operation;
    }

    /** The model named in the request (or implied by the deployment), or null. */
    public String model() {
        return model;
    }

    /** The provider deployment (Azure), or null. */
    public String deployment() {
        return deployment;
    }

    /** Whether the response will be a stream (SSE). */
    public boolean streaming() {
        return streaming;
    }

    /** OpenAI: whether the stream will end with a usage chunk ({@code stream_options.include_usage}). */
    public boolean streamUsageRequested() {
        return streamUsageRequested;
    }

    /** The request's maximum output tokens, or {@link #NO_MAX}. */
    public long maxOutputTokens() {
        return maxOutputTokens;
    }

    /** Estimated input tokens, as the provider would count them. */
    public long estimatedInputTokens() {
        return estimatedInputTokens;
    }

    /**
     * The {@code service_tier} the request asks for ({@code flex}, {@code priority}, {@code
     * auto}...), or null: what the call is priced at unless its answer says otherwise.
     */
    public String serviceTier() {
        return serviceTier;
    }

    /** Short hash of the API key the request carries, or null when it carries none. */
    public String apiKeyId() {
        return apiKeyId;
    }

    /** The provider's own scope read from the request: organization, project, region, deployment. */
    public Map<String, String> providerScope() {
        return providerScope;
    }

    /**
     * What the provider's own limiter charges this request in a dimension at admission (OpenAI:
     * max(max_tokens, estimated prompt) tokens; Azure: prompt + max_tokens; Anthropic: input and
     * max_tokens output), or -1 when the adapter has no rule for it. Buckets that mirror the
     * provider are charged this, or Sluice under-reserves and meets 429s.
     */
    public long providerCharge(Dimension dimension) {
        return providerCharges[dimension.ordinal()];
    }

    /** Builds {@link RequestFacts}. */
    public static final class Builder {
        private final String providerKind;
        private String operation = "unknown";
        private String model;
        private String deployment;
        private boolean streaming;
        private boolean streamUsageRequested;
        private long maxOutputTokens = NO_MAX;
        private long estimatedInputTokens;
        private String serviceTier;
        private String apiKeyId;
        private Map<String, String> providerScope; // made on the first name: most requests name none
        private final long[] providerCharges = NO_CHARGES.clone();

        private Builder(String providerKind) {
            this.providerKind = providerKind;
        }

        public Builder operation(String v) {
            this.operation = v;
            return this;
        }

        public Builder model(String v) {
            this.model = v;
            return this;
        }

        public Builder deployment(String v) {
            this.deployment = v;
            return this;
        }

        public Builder streaming(boolean v) {
            this.streaming = v;
            return this;
        }

        public Builder streamUsageRequested(boolean v) {
            this.streamUsageRequested = v;
            return this;
        }

        public Builder maxOutputTokens(long v) {
            this.maxOutputTokens = v < 0 ? NO_MAX : v;
            return this;
        }

        public Builder estimatedInputTokens(long v) {
            this.estimatedInputTokens = Math.max(0, v);
            return this;
        }

        public Builder serviceTier(String v) {
            this.serviceTier = v;
            return this;
        }

        public Builder apiKeyId(String v) {
            this.apiKeyId = v;
            return this;
        }

        public Builder providerScope(String key, String value) {
            if (value != null && !value.isEmpty()) {
                if (providerScope == null) {
                    providerScope = new LinkedHashMap<>();
                }
                providerScope.put(key, value);
            }
            return this;
        }

        public Builder providerCharge(Dimension dimension, long charge) {
            this.providerCharges[dimension.ordinal()] = Math.max(0, charge);
            return this;
        }

        public RequestFacts build() {
            return new RequestFacts(this);
        }

        private static final long[] NO_CHARGES = noCharges();

        private static long[] noCharges() {
            long[] charges = new long[Dimension.values().length];
            Arrays.fill(charges, -1);
            return charges;
        }
    }
}
