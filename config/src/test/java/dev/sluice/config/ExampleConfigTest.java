package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The documented example must load cleanly and mean what its comments say. */
class ExampleConfigTest {
    private static final Path EXAMPLE = Paths.get("examples", "sluice.yaml");
    private static SluiceConfig config;

    @BeforeAll
    static void load() throws ConfigException {
        config = ConfigLoader.load(ConfigSources.builder().file(EXAMPLE).build());
    }

    @Test
    void providersMirrorTheirPublishedLimits() {
        assertThat(config.providers())
                .extracting(ProviderConfig::name)
                .containsExactly(
                        "openai-prod", "azure-eastus-gpt4o", "azure-westus-gpt4o", "anthropic", "groq", "llm-gateway");
        assertThat(config.limit("openai-prod.requests.1m").orElseThrow().capacity())
                .isEqualTo(5_000);
        assertThat(config.limit("openai-tpm").orElseThrow().capacity()).isEqualTo(2_000_000);
        ProviderConfig azure = config.provider("azure-eastus-gpt4o").orElseThrow();
        assertThat(azure.match()
                        .matchesUrl(
                                "https://acme-eastus.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions"))
                .isTrue();
        assertThat(azure.scope()).containsEntry("deployment", "gpt-4o-prod");
    }

    @Test
    void interactiveCallsMayMoveToTheOtherRegion() {
        FallbackConfig f = config.fallbacks().get(0);
        assertThat(f.from()).isEqualTo("azure-eastus-gpt4o");
        assertThat(f.classes()).containsExactly("interactive");
        FallbackConfig.Route west = f.routes().get(0);
        assertThat(west.name()).isEqualTo("azure-westus-gpt4o");
        assertThat(west.apiKeyEnv()).isEqualTo("AZURE_WESTUS_API_KEY");
        assertThat(west.baseUrl(config.provider("azure-westus-gpt4o").orElseThrow()))
                .isEqualTo("https://acme-westus.openai.azure.com/openai/deployments/gpt-4o-west");
    }

    @Test
    void groqTellsItsAdapterThatRequestBudgetsArePerDay() {
        ProviderConfig groq = config.provider("groq").orElseThrow();
        assertThat(groq.kind()).isEqualTo(ProviderKind.OPENAI_COMPATIBLE);
        assertThat(groq.options())
                .containsEntry("requestsWindow", "1d")
                .containsEntry("tokensWindow", "1m")
                .containsEntry("truesUpTokens", "true");
    }

    @Test
    void theGatewayHasPerKeyAndPerOrganizationFixedWindowsAndPerKeyConcurrency() {
        ProviderConfig gw = config.provider("llm-gateway").orElseThrow();
        assertThat(gw.kind()).isEqualTo(ProviderKind.FIXED_WINDOW_GATEWAY);
        assertThat(gw.learnFromHeaders()).isFalse();
        LimitConfig perKey = config.limit("llm-gateway.api_key.requests.1m").orElseThrow();
        assertThat(perKey.capacity()).isEqualTo(600);
        assertThat(perKey.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
        assertThat(perKey.level()).isEqualTo(ScopeLevel.API_KEY);
        LimitConfig perOrg = config.limit("llm-gateway.requests.1m").orElseThrow();
        assertThat(perOrg.capacity()).isEqualTo(1800);
        assertThat(perOrg.level()).isEqualTo(ScopeLevel.ORGANIZATION);
        LimitConfig concurrency =
                config.limit("llm-gateway.api_key.concurrency").orElseThrow();
        assertThat(concurrency.capacity()).isEqualTo(8);
        assertThat(concurrency.window()).isNull();
    }

    @Test
    void theSpendCapResetsAtMidnightPacific() {
        LimitConfig spend = config.limit("daily-spend").orElseThrow();
        assertThat(spend.dimension()).isEqualTo(Dimension.SPEND);
        assertThat(spend.capacity()).isEqualTo(500_000_000L);
        assertThat(spend.algorithm()).isEqualTo(Algorithm.DAILY_RESET);
        assertThat(spend.resetAt()).isEqualTo(LocalTime.MIDNIGHT);
        assertThat(spend.zone()).isEqualTo(ZoneId.of("America/Los_Angeles"));
        assertThat(spend.shared()).isTrue();
        LimitConfig monthly = config.limit("team-monthly").orElseThrow();
        assertThat(monthly.capacity()).isEqualTo(1_500_000_000L);
        assertThat(monthly.period()).isEqualTo(CalendarPeriod.MONTH);
        assertThat(monthly.warnAt()).isEqualTo(0.9);
        assertThat(config.limit("batch-models-rpm").orElseThrow().enforced()).isFalse();
    }

    @Test
    void tenantsHaveWeightsAndAGuarantee() {
        assertThat(config.tenants()).extracting(TenantConfig::name).containsExactly("search", "reports", "onboarding");
        TenantConfig search = config.tenant("search").orElseThrow();
        assertThat(search.weight()).isEqualTo(3);
        assertThat(search.guaranteedShare()).isEqualTo(0.3);
        assertThat(config.limit("tenant.search.spend.1d").orElseThrow().scopeValue())
                .isEqualTo("search");
    }

    @Test
    void identityUsesEveryKindOfRule() {
        List<IdentityRule> all = new ArrayList<>(config.identity().tenant());
        all.addAll(config.identity().team());
        all.addAll(config.identity().trafficClass());
        Set<IdentityRule.Kind> kinds = EnumSet.noneOf(IdentityRule.Kind.class);
        all.forEach(r -> kinds.add(r.kind()));
        assertThat(kinds).containsExactlyInAnyOrder(IdentityRule.Kind.values());
        IdentityRule thread = config.identity().tenant().get(3);
        assertThat(thread.valueFromThreadName("tenant-search-worker-1")).isEqualTo("search");
    }

    @Test
    void classesRetryEstimationAndStoreAreAsDocumented() {
        assertThat(config.trafficClasses())
                .extracting(TrafficClassConfig::name)
                .containsExactly("default", "interactive", "batch", "realtime-voice");
        TrafficClassConfig interactive = config.trafficClass("interactive").orElseThrow();
        assertThat(interactive.maxWait()).isEqualTo(Duration.ofMillis(500));
        assertThat(interactive.maxQueueDepth()).isEqualTo(1000);
        assertThat(config.trafficClass("realtime-voice").orElseThrow().priority())
                .isEqualTo(20);
        assertThat(config.retry()).isEqualTo(RetryConfig.defaults());
        assertThat(config.estimation()).isEqualTo(EstimationConfig.defaults());
        assertThat(config.store().host()).isEqualTo("redis.internal");
        assertThat(config.store().instances()).isEqualTo(6);
        assertThat(config.origin()).isEqualTo("file " + EXAMPLE);
    }
}
