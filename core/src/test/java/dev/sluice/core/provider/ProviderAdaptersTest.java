package dev.sluice.core.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.MatchConfig;
import dev.sluice.core.provider.compatible.OpenAiCompatibleAdapter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderAdaptersTest {

    final ProviderRegistry registry = new ProviderRegistry(
            List.of(
                    ProviderBinding.configured(
                            "vllm",
                            ProviderAdapters.forKind("openai-compatible"),
                            MatchConfig.urls("http://vllm.internal:8000/v1/"),
                            Map.of(),
                            true),
                    ProviderBinding.configured(
                            "groq",
                            ProviderAdapters.forKind("openai-compatible", Map.of("requestsWindow", "1d")),
                            MatchConfig.hosts("api.groq.com"),
                            Map.of(),
                            true),
                    ProviderBinding.configured(
                            "gateway",
                            ProviderAdapters.forKind("fixed-window-gateway"),
                            MatchConfig.urls("https://llm.example.com/api/"),
                            Map.of(),
                            false)),
            ProviderAdapters.known());

    @Test
    void aConnectionReachesAProviderByItsPublicHostOrAConfiguredHostOrBaseUrl() {
        assertThat(registry.recognisesEndpoint("api.openai.com", 443)).isTrue();
        assertThat(registry.recognisesEndpoint("API.Anthropic.com", 443)).isTrue();
        assertThat(registry.recognisesEndpoint("generativelanguage.googleapis.com", 443))
                .isTrue();
        assertThat(registry.recognisesEndpoint("us-central1-aiplatform.googleapis.com", 443))
                .isTrue();
        assertThat(registry.recognisesEndpoint("myres.openai.azure.com", 443)).isTrue();
        assertThat(registry.recognisesEndpoint("api.groq.com", 8443))
                .as("a configured host, any port")
                .isTrue();
        assertThat(registry.recognisesEndpoint("vllm.internal", 8000))
                .as("a configured URL's host and port")
                .isTrue();
        assertThat(registry.recognisesEndpoint("vllm.internal", 9000))
                .as("another port of that host")
                .isFalse();
        assertThat(registry.recognisesEndpoint("llm.example.com", 443))
                .as("https's port when none is written")
                .isTrue();
        assertThat(registry.recognisesEndpoint("db.internal", 5432)).isFalse();
        assertThat(registry.recognisesEndpoint("127.0.0.1", 443)).isFalse();
        assertThat(registry.recognisesEndpoint(null, 443)).isFalse();
    }

    @Test
    void knownAdaptersAreThoseWithAPublicHost() {
        assertThat(ProviderAdapters.known())
                .extracting(ProviderAdapter::kind)
                .containsExactly("openai", "azure-openai", "anthropic", "gemini", "vertex-ai", "bedrock");
        assertThat(ProviderAdapters.KINDS)
                .containsExactly(
                        "openai",
                        "azure-openai",
                        "anthropic",
                        "gemini",
                        "vertex-ai",
                        "bedrock",
                        "openai-compatible",
                        "fixed-window-gateway");
        for (String kind : ProviderAdapters.KINDS) {
            assertThat(ProviderAdapters.forKind(kind).kind()).isEqualTo(kind);
            assertThat(ProviderAdapters.requiresMatch(kind))
                    .isEqualTo(kind.equals("openai-compatible") || kind.equals("fixed-window-gateway"));
        }
    }

    @Test
    void theRegistryFindsEachProviderByHostOrConfiguredUrl() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("https://api.openai.com/v1/chat/completions", "openai");
        expected.put(
                "https://my-res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=1",
                "azure-openai");
        expected.put("https://api.anthropic.com/v1/messages", "anthropic");
        expected.put(
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                "gemini");
        expected.put(
                "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent",
                "vertex-ai");
        expected.put(
                "https://bedrock-runtime.eu-west-3.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse",
                "bedrock");
        expected.put("http://vllm.internal:8000/v1/chat/completions", "vllm");
        expected.put("https://api.groq.com/openai/v1/chat/completions", "groq");
        expected.put("https://llm.example.com/api/v1/chat/completions", "gateway");
        expected.forEach((url, name) -> assertThat(registry.match(url))
                .as(url)
                .isNotNull()
                .extracting(ProviderBinding::name)
                .isEqualTo(name));
        for (String url : new String[] {
            "https://api.anthropic.com/v1/messages/count_tokens",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens",
            "http://vllm.example.org/v1/chat/completions",
            "https://example.com/v1/messages"
        }) {
            assertThat(registry.match(url)).as(url).isNull();
        }
    }

    /** The registry keeps the last URLs it matched: asked again, in any order, each gets its own answer. */
    @Test
    void urlsAskedAgainGetTheirOwnAnswerWhateverShareTheirSlot() {
        List<String> urls = new java.util.ArrayList<>(List.of(
                "https://api.openai.com/v1/chat/completions",
                "https://api.anthropic.com/v1/messages",
                "https://api.anthropic.com/v1/messages/count_tokens",
                "http://vllm.internal:8000/v1/chat/completions",
                "https://my-res.openai.azure.com/openai/deployments/d/chat/completions?api-version=1",
                "https://api.groq.com/openai/v1/chat/completions"));
        for (int i = 0; i < 300; i++) { // far more than the table's slots: every slot is shared
            urls.add("https://svc-" + i + ".internal/v1/chat/completions");
            urls.add("https://api.openai.com/v1/chat/completions?n=" + i);
            urls.add(i % 2 == 0 ? "https://api.openai.com/v1/embeddings" : "https://api.openai.com/v1/files/" + i);
        }
        Map<String, String> firstAnswers = new LinkedHashMap<>();
        for (String url : urls) {
            firstAnswers.put(url, nameOf(registry.match(url)));
        }
        java.util.Random random = new java.util.Random(5);
        for (int round = 0; round < 5_000; round++) {
            String url = urls.get(random.nextInt(urls.size()));
            String asked = random.nextBoolean() ? url : new String(url.toCharArray()); // equal, not the same object
            assertThat(nameOf(registry.match(asked))).as(url).isEqualTo(firstAnswers.get(url));
        }
        assertThat(firstAnswers.get("https://api.openai.com/v1/chat/completions"))
                .isEqualTo("openai");
        assertThat(firstAnswers.get("https://svc-7.internal/v1/chat/completions"))
                .isNull();
        assertThat(firstAnswers.get("https://api.anthropic.com/v1/messages/count_tokens"))
                .isNull();
    }

    private static String nameOf(ProviderBinding binding) {
        return binding == null ? null : binding.name();
    }

    @Test
    void optionsReachTheCompatibleAdapter() {
        OpenAiCompatibleAdapter groq = (OpenAiCompatibleAdapter) ProviderAdapters.forKind(
                "openai-compatible", Map.of("requestsWindow", "1d", "tokensWindow", "PT1M", "truesUpTokens", "false"));
        assertThat(groq.settings().requestsWindow()).isEqualTo(Duration.ofDays(1));
        assertThat(groq.settings().tokensWindow()).isEqualTo(Duration.ofMinutes(1));
        assertThat(groq.settings().truesUpTokens()).isFalse();
        assertThat(ProviderAdapters.forKind("openai", Map.of()).kind()).isEqualTo("openai");
        assertThat(ProviderAdapters.forKind("anthropic", (Map<String, String>) null)
                        .kind())
                .isEqualTo("anthropic");
    }

    @Test
    void mistakesAreNamedPrecisely() {
        assertThatThrownBy(() -> ProviderAdapters.forKind("bedrok"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown provider kind \"bedrok\"; known kinds are openai, azure-openai, anthropic, "
                        + "gemini, vertex-ai, bedrock, openai-compatible, fixed-window-gateway");
        assertThatThrownBy(() -> ProviderAdapters.forKind(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProviderAdapters.forKind("anthropic", Map.of("requestsWindow", "1d")))
                .hasMessage("kind anthropic takes no options (given [requestsWindow]); only openai-compatible does");
        assertThatThrownBy(() -> ProviderAdapters.forKind("openai-compatible", Map.of("requestWindow", "1d")))
                .hasMessage("unknown adapter option \"requestWindow\"; valid options are requestsWindow, "
                        + "tokensWindow, truesUpTokens");
        assertThatThrownBy(() -> AdapterSettings.fromOptions(Map.of("requestsWindow", "a day")))
                .hasMessage("requestsWindow: \"a day\" is not a positive duration such as 60s, 1m, 24h, 1d or PT24H");
        assertThatThrownBy(() -> AdapterSettings.fromOptions(Map.of("tokensWindow", "0s")))
                .hasMessageStartingWith("tokensWindow: \"0s\" is not a positive duration");
        assertThatThrownBy(() -> AdapterSettings.fromOptions(Map.of("truesUpTokens", "yes")))
                .hasMessage("truesUpTokens: \"yes\" is not true or false");
    }

    @Test
    void durationsInEveryFormConfigUses() {
        Map<String, Duration> forms = new LinkedHashMap<>();
        forms.put("500ms", Duration.ofMillis(500));
        forms.put("60s", Duration.ofSeconds(60));
        forms.put("1m", Duration.ofMinutes(1));
        forms.put("24h", Duration.ofHours(24));
        forms.put("1d", Duration.ofDays(1));
        forms.put(" 1D ", Duration.ofDays(1));
        forms.put("PT10S", Duration.ofSeconds(10));
        forms.put("pt24h", Duration.ofHours(24));
        forms.forEach((text, d) -> assertThat(AdapterSettings.fromOptions(Map.of("requestsWindow", text))
                        .requestsWindow())
                .as(text)
                .isEqualTo(d));
        assertThat(AdapterSettings.defaults().asOptions())
                .containsEntry("requestsWindow", "PT1M")
                .containsEntry("truesUpTokens", "true");
    }
}
