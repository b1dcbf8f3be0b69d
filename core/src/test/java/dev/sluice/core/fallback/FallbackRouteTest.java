package dev.sluice.core.fallback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.MatchConfig;
import dev.sluice.core.provider.ProviderAdapters;
import dev.sluice.core.provider.ProviderBinding;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a route rewrites on the way (address, deployment, model, credential), and that it leaves the rest. */
class FallbackRouteTest {

    private static ProviderBinding provider(String name, String kind) {
        return ProviderBinding.configured(
                name, ProviderAdapters.forKind(kind), MatchConfig.hosts(name + ".example.com"), Map.of(), true);
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anAzureRouteChangesHostDeploymentAndKeyAndKeepsTheQuery() {
        FallbackRoute west = new FallbackRoute(
                "west",
                provider("azure-west", "azure-openai"),
                "https://acme-westus.openai.azure.com",
                "",
                "gpt-4o-mini-west",
                null,
                "west-key");
        byte[] body = json("{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        Rewritten r = west.rewrite(
                "https://acme-eastus.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions"
                        + "?api-version=2024-10-21",
                body,
                body.length);
        assertThat(r.url())
                .isEqualTo("https://acme-westus.openai.azure.com/openai/deployments/gpt-4o-mini-west/chat/completions"
                        + "?api-version=2024-10-21");
        assertThat(r.headers()).containsEntry("api-key", "west-key").containsEntry("authorization", null);
        assertThat(r.body())
                .as("the deployment is in the path: the body goes as it came")
                .isNull();
    }

    @Test
    void onAzuresV1RoutesTheDeploymentIsTheBodysModel() {
        FallbackRoute west = new FallbackRoute(
                "west", provider("azure-west", "azure-openai"), "https://west.example.com", "", "dep-w", null, null);
        byte[] body = json("{\"model\":\"dep-e\",\"max_tokens\":16,\"temperature\":0.25,\"stream\":false}");
        Rewritten r = west.rewrite("https://east.example.com/openai/v1/chat/completions", body, body.length);
        assertThat(r.url()).isEqualTo("https://west.example.com/openai/v1/chat/completions");
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"model\":\"dep-w\",\"max_tokens\":16,\"temperature\":0.25,\"stream\":false}");
        assertThat(r.headers()).containsEntry("content-length", null).doesNotContainKey("api-key");
    }

    @Test
    void anOpenAiRouteTakesItsBasePathAndABearerKey() {
        FallbackRoute vllm = new FallbackRoute(
                "vllm",
                provider("vllm", "openai-compatible"),
                "http://vllm.internal:8000/gateway/",
                "/proxy",
                null,
                "llama-3.1-70b",
                "vllm-key");
        byte[] body = json("{\"messages\":[{\"role\":\"user\",\"content\":\"{\\\"model\\\":\\\"x\\\"}\"}],"
                + "\"model\":\"gpt-4o\",\"metadata\":{\"model\":\"keep\"}}");
        Rewritten r = vllm.rewrite("https://proxy.example.com/proxy/v1/chat/completions", body, body.length);
        assertThat(r.url()).isEqualTo("http://vllm.internal:8000/gateway/v1/chat/completions");
        assertThat(r.headers())
                .containsEntry("authorization", "Bearer vllm-key")
                .containsEntry("api-key", null);
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .as("only the root's model: one in a string or a nested object stays")
                .isEqualTo("{\"messages\":[{\"role\":\"user\",\"content\":\"{\\\"model\\\":\\\"x\\\"}\"}],"
                        + "\"model\":\"llama-3.1-70b\",\"metadata\":{\"model\":\"keep\"}}");
    }

    @Test
    void anAnthropicRouteSendsItsKeyAsXApiKey() {
        FallbackRoute other = new FallbackRoute(
                "eu", provider("anthropic-eu", "anthropic"), "https://eu.example.com", "", null, null, "sk-ant-eu");
        Rewritten r = other.rewrite("https://api.anthropic.com/v1/messages", json("{}"), 2);
        assertThat(r.url()).isEqualTo("https://eu.example.com/v1/messages");
        assertThat(r.headers()).containsEntry("x-api-key", "sk-ant-eu").containsEntry("authorization", null);
        assertThat(r.body()).isNull();
    }

    @Test
    void withoutACredentialTheCallsOwnHeadersStay() {
        FallbackRoute same = new FallbackRoute(
                "b", provider("azure-east", "azure-openai"), "https://east.example.com", "", "b", null, null);
        Rewritten r = same.rewrite("https://east.example.com/openai/deployments/a/embeddings", null, 0);
        assertThat(r.url()).isEqualTo("https://east.example.com/openai/deployments/b/embeddings");
        assertThat(r.headers()).containsOnlyKeys("host");
        assertThat(same.toString()).doesNotContain("key");
    }

    @Test
    void aBodyThatIsNoJsonObjectIsLeftAlone() {
        assertThat(FallbackRoute.withModel(json("[1,2]"), 5, "m")).isNull();
        assertThat(FallbackRoute.withModel(json("{\"model\":"), 9, "m")).isNull();
        assertThat(FallbackRoute.withModel(json("{\"input\":\"x\"}"), 13, "m")).isNull();
    }

    @Test
    void aPlanSkipsRoutesOfAnotherModelUnlessTheClassAllowsThem() {
        FallbackRoute other = new FallbackRoute(
                "mini", provider("openai-b", "openai"), "https://b.example.com", "", null, "gpt-4o-mini", null);
        FallbackRoute same =
                new FallbackRoute("b", provider("openai-b", "openai"), "https://b.example.com", "", null, null, null);
        assertThat(new FallbackPlan(java.util.List.of(other, same), 0, false, 0).next(0, "gpt-4o"))
                .isEqualTo(1);
        assertThat(new FallbackPlan(java.util.List.of(other, same), 0, true, 0).next(0, "gpt-4o"))
                .isZero();
        assertThat(new FallbackPlan(java.util.List.of(other), 0, false, 0).next(0, "gpt-4o"))
                .isEqualTo(-1);
    }
}
