package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigSources;
import dev.sluice.config.Dimension;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.provider.AdapterSettings;
import dev.sluice.core.provider.compatible.OpenAiCompatibleAdapter;
import dev.sluice.core.quota.Limit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SluiceRuntimeTest {

    @Test
    void theCommentedExampleConfigStartsAGovernorWithEveryLimitAndProvider() throws Exception {
        Path example = Path.of("../config/examples/sluice.yaml");
        SluiceConfig config =
                ConfigLoader.load(ConfigSources.builder().file(example).build());
        FakeClock clock = new FakeClock();
        try (SluiceRuntime runtime = SluiceRuntime.start(config, clock, new ManualTimer(clock))) {
            assertThat(runtime.governor().controls().limits())
                    .hasSize(config.allLimits().size());
            for (Limit l : runtime.governor().controls().limits()) {
                assertThat(config.limit(l.id())).isPresent();
            }
            config.providers()
                    .forEach(p -> assertThat(runtime.governance().registry().configured())
                            .anySatisfy(b -> assertThat(b.name()).isEqualTo(p.name())));
            assertThat(runtime.governor().controls().trafficClasses()).containsKeys("default", "interactive", "batch");
        }
        try (SluiceRuntime runtime = SluiceRuntime.start(
                config, clock, new ManualTimer(clock), java.util.Map.of("AZURE_WESTUS_API_KEY", "k-west"))) {
            assertThat(runtime.governance().fallbacks().plan("azure-eastus-gpt4o", "interactive"))
                    .as("the example's fallback route, its key in the environment")
                    .isNotNull();
            assertThat(runtime.governance().fallbacks().plan("azure-eastus-gpt4o", "batch"))
                    .isNull();
        }
    }

    /** Every option config accepts is one the adapter reads, so a valid file can never fail at start. */
    @Test
    void aProvidersOptionsReachItsAdapter() throws Exception {
        Path file = Files.createTempFile("sluice", ".yaml");
        try {
            Files.writeString(
                    file,
                    String.join(
                            "\n",
                            "providers:",
                            "  - name: groq",
                            "    kind: openai-compatible",
                            "    match: {urls: [\"https://api.groq.com/openai/v1/\"]}",
                            "    options: {requestsWindow: 24h, tokensWindow: 1.5m, truesUpTokens: false}",
                            "  - name: vllm",
                            "    kind: openai-compatible",
                            "    match: {hosts: [vllm.internal]}",
                            ""));
            SluiceConfig config =
                    ConfigLoader.load(ConfigSources.builder().file(file).build());
            FakeClock clock = new FakeClock();
            try (SluiceRuntime runtime = SluiceRuntime.start(config, clock, new ManualTimer(clock))) {
                AdapterSettings groq = settingsOf(runtime, "groq");
                assertThat(groq.requestsWindow()).isEqualTo(Duration.ofDays(1));
                assertThat(groq.tokensWindow()).isEqualTo(Duration.ofSeconds(90));
                assertThat(groq.truesUpTokens()).isFalse();
                assertThat(settingsOf(runtime, "vllm").asOptions())
                        .isEqualTo(AdapterSettings.defaults().asOptions());
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static AdapterSettings settingsOf(SluiceRuntime runtime, String provider) {
        return runtime.governance().registry().configured().stream()
                .filter(b -> b.name().equals(provider))
                .map(b -> ((OpenAiCompatibleAdapter) b.adapter()).settings())
                .findFirst()
                .orElseThrow();
    }

    @Test
    void withNoConfigTheKnownProvidersAreGovernedAndNothingElse() {
        try (SluiceRuntime runtime = SluiceRuntime.start(SluiceConfig.defaults())) {
            var g = runtime.governance();
            assertThat(g.governs("https://api.openai.com/v1/chat/completions")).isTrue();
            assertThat(g.governs("https://api.openai.com/v1/models")).isFalse();
            assertThat(g.governs("https://myres.openai.azure.com/openai/deployments/gpt4o/chat/completions"
                            + "?api-version=2024-10-21"))
                    .isTrue();
            assertThat(g.governs("https://api.anthropic.com/v1/messages")).isTrue();
            assertThat(g.governs("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash"
                            + ":generateContent"))
                    .isTrue();
            assertThat(g.governs("https://example.com/v1/chat/completions")).isFalse();
            assertThat(runtime.governor().controls().available(Dimension.REQUESTS))
                    .isEqualTo(Long.MAX_VALUE);
        }
    }
}
