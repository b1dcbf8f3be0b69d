package dev.sluice.core.provider;

import dev.sluice.core.provider.anthropic.AnthropicAdapter;
import dev.sluice.core.provider.azure.AzureOpenAiAdapter;
import dev.sluice.core.provider.bedrock.BedrockAdapter;
import dev.sluice.core.provider.compatible.OpenAiCompatibleAdapter;
import dev.sluice.core.provider.gateway.FixedWindowGatewayAdapter;
import dev.sluice.core.provider.gemini.GeminiAdapter;
import dev.sluice.core.provider.gemini.VertexAiAdapter;
import dev.sluice.core.provider.openai.OpenAiAdapter;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The one list of provider adapters, for wiring: the ones recognised by their public host with no
 * config at all ({@link #known}), and every kind a configured provider may name ({@link #forKind}).
 *
 * <p>A configured provider entry ({@code kind}, {@code match.hosts}, {@code match.urls},
 * {@code scope}, {@code learnFromHeaders}, {@code limits}) maps to a {@link ProviderBinding} of
 * {@code forKind(kind, options)}; the kinds without a public host take their adapter options as a
 * flat string map ({@link AdapterSettings#fromOptions}), e.g. for Groq
 * {@code kind: openai-compatible, options: {requestsWindow: 1d}}.
 */
public final class ProviderAdapters {

    /** Every kind, in the order config documentation lists them. */
    public static final List<String> KINDS = List.of(
            OpenAiAdapter.KIND,
            AzureOpenAiAdapter.KIND,
            AnthropicAdapter.KIND,
            GeminiAdapter.KIND,
            VertexAiAdapter.KIND,
            BedrockAdapter.KIND,
            OpenAiCompatibleAdapter.KIND,
            FixedWindowGatewayAdapter.KIND);

    private ProviderAdapters() {}

    /** The adapters recognised by public host with no config: openai, azure-openai, anthropic, gemini, vertex-ai, bedrock. */
    public static List<ProviderAdapter> known() {
        return known(System::currentTimeMillis);
    }

    /** {@link #known()} on the given wall clock (epoch milliseconds). */
    public static List<ProviderAdapter> known(LongSupplier wallClockMillis) {
        return List.of(
                new OpenAiAdapter(wallClockMillis),
                new AzureOpenAiAdapter(wallClockMillis),
                new AnthropicAdapter(wallClockMillis),
                new GeminiAdapter(wallClockMillis),
                new VertexAiAdapter(wallClockMillis),
                new BedrockAdapter(wallClockMillis));
    }

    /** The adapter of a kind with default settings. */
    public static ProviderAdapter forKind(String kind) {
        return forKind(kind, AdapterSettings.defaults());
    }

    /**
     * The adapter of a kind, built from a provider entry's options.
     *
     * @throws IllegalArgumentException for an unknown kind, an unknown or invalid option, or options
     *     given to a kind that takes none (only {@code openai-compatible} does)
     */
    public static ProviderAdapter forKind(String kind, Map<String, String> options) {
        if (options != null && !options.isEmpty() && !OpenAiCompatibleAdapter.KIND.equals(kind)) {
            requireKnown(kind);
            throw new IllegalArgumentException("kind " + kind + " takes no options (given " + options.keySet()
                    + "); only " + OpenAiCompatibleAdapter.KIND + " does");
        }
        return forKind(kind, AdapterSettings.fromOptions(options));
    }

    /**
     * The adapter of a kind with these settings; kinds with a public host read only the wall clock.
     *
     * @throws IllegalArgumentException for an unknown kind
     */
    public static ProviderAdapter forKind(String kind, AdapterSettings settings) {
        LongSupplier clock = settings.wallClockMillis();
        switch (requireKnown(kind)) {
            case OpenAiAdapter.KIND:
                return new OpenAiAdapter(clock);
            case AzureOpenAiAdapter.KIND:
                return new AzureOpenAiAdapter(clock);
            case AnthropicAdapter.KIND:
                return new AnthropicAdapter(clock);
            case GeminiAdapter.KIND:
                return new GeminiAdapter(clock);
            case VertexAiAdapter.KIND:
                return new VertexAiAdapter(clock);
            case BedrockAdapter.KIND:
                return new BedrockAdapter(clock);
            case OpenAiCompatibleAdapter.KIND:
                return new OpenAiCompatibleAdapter(settings);
            default:
                return new FixedWindowGatewayAdapter(settings);
        }
    }

    /** Whether a kind can only be selected by a configured match: it has no public host. */
    public static boolean requiresMatch(String kind) {
        String k = requireKnown(kind);
        return k.equals(OpenAiCompatibleAdapter.KIND) || k.equals(FixedWindowGatewayAdapter.KIND);
    }

    private static String requireKnown(String kind) {
        if (kind == null || !KINDS.contains(kind)) {
            throw new IllegalArgumentException(
                    "unknown provider kind \"" + kind + "\"; known kinds are " + String.join(", ", KINDS));
        }
        return kind;
    }
}
