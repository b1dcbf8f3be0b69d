package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How calls are recognised as a provider's: hosts with wildcards, URL prefixes, kinds' public hosts. */
class MatchConfigTest {

    @Test
    void wildcardHostsMatchSubdomainsButNotTheBareSuffix() {
        MatchConfig m = MatchConfig.hosts("*.openai.azure.com", "API.example.com");
        assertThat(m.matchesHost("acme-eastus.openai.azure.com")).isTrue();
        assertThat(m.matchesHost("openai.azure.com")).isFalse();
        assertThat(m.matchesHost("api.EXAMPLE.com")).isTrue();
        assertThat(m.hosts()).containsExactly("*.openai.azure.com", "api.example.com");
    }

    @Test
    void urlPrefixesCompareSchemeAndHostIgnoringCaseButPathsExactly() {
        MatchConfig m = MatchConfig.urls("https://llm.internal.example.com/v1/");
        assertThat(m.matchesUrl("HTTPS://LLM.internal.example.com/v1/chat/completions"))
                .isTrue();
        assertThat(m.matchesUrl("https://llm.internal.example.com/V1/chat")).isFalse();
        assertThat(m.matchesUrl("https://llm.internal.example.com/v2/chat")).isFalse();
    }

    @Test
    void publicKindsAreRecognisedWithoutAMatch() {
        ProviderConfig vertex =
                ProviderConfig.builder("vertex", ProviderKind.VERTEX_AI).build();
        assertThat(vertex.match().matchesHost("us-central1-aiplatform.googleapis.com"))
                .isTrue();
        assertThat(vertex.match().matchesHost("generativelanguage.googleapis.com"))
                .isFalse();
        assertThat(ProviderKind.OPENAI_COMPATIBLE.requiresMatch()).isTrue();
        assertThat(ProviderKind.ANTHROPIC.defaultHosts()).containsExactly("api.anthropic.com");
    }

    @Test
    void aConfiguredAzureEntryKeepsEveryHostAzureServesOpenAiFrom() {
        ProviderConfig azure =
                ProviderConfig.builder("azure", ProviderKind.AZURE_OPENAI).build();
        assertThat(azure.match().matchesHost("contoso.openai.azure.com")).isTrue();
        assertThat(azure.match().matchesHost("contoso.cognitiveservices.azure.com"))
                .isTrue();
        assertThat(azure.match().matchesHost("contoso.services.ai.azure.com")).isTrue();
        assertThat(azure.match().matchesHost("contoso.blob.core.windows.net")).isFalse();
    }
}
