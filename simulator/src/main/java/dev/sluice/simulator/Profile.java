package dev.sluice.simulator;

import dev.sluice.simulator.profile.anthropic.AnthropicProtocol;
import dev.sluice.simulator.profile.azure.AzureOpenAiProtocol;
import dev.sluice.simulator.profile.bedrock.BedrockProtocol;
import dev.sluice.simulator.profile.gateway.GatewayProtocol;
import dev.sluice.simulator.profile.gemini.GeminiProtocol;
import dev.sluice.simulator.profile.openai.OpenAiProtocol;
import dev.sluice.simulator.protocol.ProtocolSettings;
import dev.sluice.simulator.protocol.ProviderProtocol;
import java.util.Locale;
import java.util.function.Function;

/**
 * The providers the simulator can be. Each brings its routes, admission rules, headers, error
 * bodies, stream framing and default limits (used when none are configured).
 */
public enum Profile {
    /** OpenAI: Chat Completions and Responses; defaults 500 RPM, 200k TPM. */
    OPENAI("openai", OpenAiProtocol::new),
    /** Azure OpenAI deployments; default 30k TPM, requests derived (6 RPM per 1000 TPM, over 10 s). */
    AZURE_OPENAI("azure", AzureOpenAiProtocol::new),
    /** Anthropic Messages; defaults 50 RPM, 30k input TPM, 8k output TPM. */
    ANTHROPIC("anthropic", AnthropicProtocol::new),
    /** Gemini generateContent and streamGenerateContent; defaults 15 RPM, 1M input TPM. */
    GEMINI("gemini", GeminiProtocol::new),
    /** Amazon Bedrock Runtime (Converse, InvokeModel and their streams); defaults 1000 RPM, 2M TPM per key and model. */
    BEDROCK("bedrock", BedrockProtocol::new),
    /** The fixed-window gateway: 600/min per key, 1800/min per organization, 8 in flight per key. */
    GATEWAY("gateway", GatewayProtocol::new);

    private final String id;
    private final Function<ProtocolSettings, ProviderProtocol> factory;

    Profile(String id, Function<ProtocolSettings, ProviderProtocol> factory) {
        this.id = id;
        this.factory = factory;
    }

    /** The name used by the CLI and the admin endpoint. */
    public String id() {
        return id;
    }

    ProviderProtocol protocol(ProtocolSettings settings) {
        return factory.apply(settings);
    }

    /** Accepts the id or the constant name, any case ("azure", "azure-openai", "AZURE_OPENAI"). */
    public static Profile parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (Profile p : values()) {
            if (p.id.equals(t) || p.name().toLowerCase(Locale.ROOT).equals(t)) {
                return p;
            }
        }
        throw new IllegalArgumentException(
                "unknown profile: " + text + " (openai, azure, anthropic, gemini, bedrock, gateway)");
    }
}
