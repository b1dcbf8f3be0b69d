package dev.sluice.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Which API dialect a provider speaks, and so which adapter parses its requests, usage,
 * rate-limit headers and errors. Kinds with public hosts are recognised without any
 * {@code match}; the others need one, since nothing about their host says what they are.
 */
public enum ProviderKind implements ConfigNamed {
    OPENAI("openai", "api.openai.com"),
    /** Host names of Azure OpenAI resources, classic and AI Services. */
    AZURE_OPENAI("azure-openai", "*.openai.azure.com", "*.cognitiveservices.azure.com", "*.services.ai.azure.com"),
    ANTHROPIC("anthropic", "api.anthropic.com"),
    GEMINI("gemini", "generativelanguage.googleapis.com"),
    /** Global and regional endpoints ({@code us-central1-aiplatform.googleapis.com}). */
    VERTEX_AI("vertex-ai", "aiplatform.googleapis.com", "*-aiplatform.googleapis.com"),
    /**
     * Amazon Bedrock Runtime: one public host per region ({@code bedrock-runtime.us-east-1.amazonaws.com}),
     * which no host pattern names and its adapter recognises; no match needed.
     */
    BEDROCK("bedrock", true),
    /** Any server speaking the OpenAI API (vLLM, a gateway, a proxy): needs a match. */
    OPENAI_COMPATIBLE("openai-compatible"),
    /**
     * A gateway that counts in fixed windows and sends no rate-limit headers (providers.md):
     * needs a match, and its limits must be configured since nothing can be learned.
     */
    FIXED_WINDOW_GATEWAY("fixed-window-gateway");

    private final String configName;
    private final List<String> defaultHosts;
    private final boolean recognisedWithoutMatch;

    ProviderKind(String configName, String... defaultHosts) {
        this(configName, defaultHosts.length > 0, defaultHosts);
    }

    ProviderKind(String configName, boolean recognisedWithoutMatch, String... defaultHosts) {
        this.configName = configName;
        this.defaultHosts = Collections.unmodifiableList(Arrays.asList(defaultHosts));
        this.recognisedWithoutMatch = recognisedWithoutMatch;
    }

    @Override
    public String configName() {
        return configName;
    }

    /**
     * The hosts a provider of this kind is recognised by when it declares no match; empty for kinds
     * that need a match, and for Bedrock, whose adapter recognises its regional hosts itself.
     */
    public List<String> defaultHosts() {
        return defaultHosts;
    }

    /**
     * The names of the {@code options:} a provider of this kind may pass to its adapter; empty for
     * kinds whose adapter knows its provider. Only {@code openai-compatible} takes any: the window
     * of its budget headers and whether its token charges are trued up differ between servers.
     */
    public List<String> adapterOptions() {
        if (this != OPENAI_COMPATIBLE) {
            return Collections.emptyList();
        }
        List<String> names = new java.util.ArrayList<>();
        for (AdapterOption o : AdapterOption.values()) {
            names.add(o.configName());
        }
        return Collections.unmodifiableList(names);
    }

    /**
     * The period this kind of provider documents enforcing its per-minute limits over, which a
     * limit declared under it takes as its burst unless it declares one: OpenAI's limits "may be
     * enforced over shorter periods" (60 RPM behaves like 1 per second), and Azure OpenAI checks
     * its RPM and TPM over 1 s or 10 s (the shorter taken). Null for the others: Anthropic refills
     * a token bucket continuously up to the limit, and Gemini, Vertex AI, Bedrock and the
     * compatible servers document no shorter period.
     */
    public java.time.Duration documentedBurst() {
        switch (this) {
            case OPENAI:
            case AZURE_OPENAI:
                return java.time.Duration.ofSeconds(1);
            default:
                return null;
        }
    }

    /** True when a provider of this kind must declare {@code match}: it has no public host. */
    public boolean requiresMatch() {
        return !recognisedWithoutMatch;
    }

    @Override
    public String toString() {
        return configName;
    }

    /** The kind with this config name, or null. */
    public static ProviderKind fromConfigName(String name) {
        return ConfigNamed.named(values(), name);
    }
}
