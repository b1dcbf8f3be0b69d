package dev.sluice.core.fallback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FallbackConfig;
import dev.sluice.config.MatchConfig;
import dev.sluice.config.ProviderConfig;
import dev.sluice.config.ProviderKind;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.provider.ProviderAdapters;
import dev.sluice.core.provider.ProviderBinding;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Plans from config: per provider and class, Azure addresses that name a deployment, credentials from the environment. */
class FallbackPlansTest {

    private static final String EAST = "https://acme-eastus.openai.azure.com/openai/deployments/gpt-4o-prod/";
    private static final String WEST = "https://acme-westus.openai.azure.com/openai/deployments/gpt-4o-west/";

    private static SluiceConfig twoRegions(FallbackConfig.Route route) {
        return SluiceConfig.builder()
                .providers(List.of(
                        ProviderConfig.builder("east", ProviderKind.AZURE_OPENAI)
                                .match(MatchConfig.urls(EAST))
                                .build(),
                        ProviderConfig.builder("west", ProviderKind.AZURE_OPENAI)
                                .match(MatchConfig.urls(WEST))
                                .build()))
                .fallbacks(List.of(FallbackConfig.builder("east")
                        .classes("interactive")
                        .route(route)
                        .build()))
                .build();
    }

    private static List<ProviderBinding> bindings(SluiceConfig config) {
        List<ProviderBinding> out = new ArrayList<>();
        for (ProviderConfig p : config.providers()) {
            out.add(ProviderBinding.configured(
                    p.name(), ProviderAdapters.forKind(p.kind().configName()), p.match(), p.scope(), true));
        }
        return out;
    }

    @Test
    void anAzureAddressNamingADeploymentSendsCallsToIt() {
        SluiceConfig config = twoRegions(
                FallbackConfig.Route.builder("west").apiKeyEnv("WEST_KEY").build());
        FallbackPlans plans = FallbackPlans.of(config, bindings(config), Map.of("WEST_KEY", "k-west"), w -> {});
        assertThat(plans.plan("east", "batch"))
                .as("a class without fallback never moves")
                .isNull();
        assertThat(plans.plan("west", "interactive")).isNull();
        FallbackPlan plan = plans.plan("east", "interactive");
        assertThat(plan.classMaxWaitNanos()).isEqualTo(300_000_000L);
        FallbackRoute route = plan.routes().get(0);
        byte[] body = "{\"model\":\"gpt-4o\"}".getBytes(StandardCharsets.UTF_8);
        Rewritten r = route.rewrite(EAST + "chat/completions?api-version=2024-10-21", body, body.length);
        assertThat(r.url())
                .isEqualTo("https://acme-westus.openai.azure.com/openai/deployments/gpt-4o-west/chat/completions"
                        + "?api-version=2024-10-21");
        assertThat(r.headers()).containsEntry("api-key", "k-west");
    }

    @Test
    void aRouteWhoseKeyIsNotInTheEnvironmentIsLeftOutAndSaysWhy() {
        SluiceConfig config = twoRegions(
                FallbackConfig.Route.builder("west").apiKeyEnv("WEST_KEY").build());
        List<String> warnings = new ArrayList<>();
        FallbackPlans plans = FallbackPlans.of(config, bindings(config), Map.of(), warnings::add);
        assertThat(plans.plan("east", "interactive")).isNull();
        assertThat(warnings)
                .containsExactly("fallbacks[0].routes[0].apiKeyEnv: WEST_KEY is not set in the environment; route"
                        + " west is left out (its calls would carry the primary's key)");
    }
}
