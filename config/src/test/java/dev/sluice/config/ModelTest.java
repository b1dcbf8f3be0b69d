package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The model as other modules and JMX use it: defaults, builders, derived values, immutability. */
class ModelTest {

    @Test
    void defaultsAreWhatSluiceDoesWithNoConfig() {
        SluiceConfig c = SluiceConfig.defaults();
        assertThat(c.mode()).isEqualTo(Mode.ENFORCE);
        assertThat(c.failMode()).isEqualTo(FailMode.OPEN);
        assertThat(c.logLevel()).isEqualTo(LogLevel.INFO);
        assertThat(c.adoptHeaderLimits()).isFalse();
        assertThat(c.leaseTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.jmx().enabled()).isTrue();
        assertThat(c.store().isLocal()).isTrue();
        assertThat(c.store().timeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.providers()).isEmpty();
        assertThat(c.allLimits()).isEmpty();
        assertThat(c.tenants()).isEmpty();
        assertThat(c.classScheduling()).isEqualTo(ClassScheduling.STRICT);
        assertThat(c.retry().maxAttempts()).isEqualTo(3);
        assertThat(c.retry().baseBackoff()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.estimation().defaultOutputTokens()).isEqualTo(1024);
        assertThat(c.origin()).isEqualTo("defaults (no config file)");
    }

    @Test
    void builtInTrafficClassesAlwaysExist() {
        assertThat(SluiceConfig.defaults().trafficClasses())
                .extracting(TrafficClassConfig::name)
                .containsExactly("default", "interactive", "batch");
        TrafficClassConfig interactive =
                SluiceConfig.defaults().trafficClass("interactive").orElseThrow();
        assertThat(interactive.maxWait()).isEqualTo(Duration.ofMillis(300));
        assertThat(interactive.maxQueueDepth()).isEqualTo(1000);
        assertThat(TrafficClassConfig.DEFAULT.maxWait()).isEqualTo(Duration.ofSeconds(60));
        assertThat(TrafficClassConfig.DEFAULT.maxQueueDepth()).isEqualTo(10_000);
        assertThat(TrafficClassConfig.BATCH.maxWait()).isEqualTo(Duration.ofMinutes(20));
        assertThat(TrafficClassConfig.BATCH.maxQueueDepth()).isEqualTo(100_000);
    }

    @Test
    void defaultIdentityReadsSluiceHeadersThenTheApiKey() {
        IdentityConfig identity = SluiceConfig.defaults().identity();
        assertThat(identity.tenant()).containsExactly(IdentityRule.header("X-Sluice-Tenant"), IdentityRule.apiKeyId());
        assertThat(identity.team()).isEmpty();
        assertThat(identity.trafficClass())
                .containsExactly(IdentityRule.header("X-Sluice-Class"), IdentityRule.defaultValue("default"));
    }

    @Test
    void aProvidersLimitsBelongToItAndAreShared() {
        ProviderConfig openai = ProviderConfig.builder("openai-prod", ProviderKind.OPENAI)
                .limit(LimitConfig.of(Dimension.TOTAL_TOKENS, 200_000, Duration.ofMinutes(1)))
                .limit(LimitConfig.builder()
                        .dimension(Dimension.REQUESTS)
                        .capacity(600)
                        .window(Duration.ofMinutes(1))
                        .level(ScopeLevel.API_KEY)
                        .build())
                .build();
        assertThat(openai.limits())
                .extracting(LimitConfig::id)
                .containsExactly("openai-prod.total_tokens.1m", "openai-prod.api_key.requests.1m");
        assertThat(openai.limits()).allSatisfy(l -> {
            assertThat(l.provider()).isEqualTo("openai-prod");
            assertThat(l.mirrorsProvider()).isTrue();
            assertThat(l.shared()).isTrue();
        });
        assertThat(openai.match().hosts()).containsExactly("api.openai.com");
        assertThat(openai.hasDeclaredMatch()).isFalse();
    }

    @Test
    void aTenantsLimitsApplyToThatTenantOnly() {
        TenantConfig search = TenantConfig.builder("search")
                .weight(3)
                .guaranteedShare(0.3)
                .limit(LimitConfig.builder()
                        .dimension(Dimension.SPEND)
                        .capacity(200_000_000)
                        .algorithm(Algorithm.DAILY_RESET)
                        .zone(ZoneId.of("America/Los_Angeles"))
                        .build())
                .build();
        LimitConfig spend = search.limits().get(0);
        assertThat(spend.id()).isEqualTo("tenant.search.spend.1d");
        assertThat(spend.level()).isEqualTo(ScopeLevel.TENANT);
        assertThat(spend.scopeValue()).isEqualTo("search");
        assertThat(spend.window()).isEqualTo(Duration.ofDays(1));
        assertThat(spend.resetAt()).isEqualTo(LocalTime.MIDNIGHT);
        assertThat(spend.zone()).isEqualTo(ZoneId.of("America/Los_Angeles"));
    }

    @Test
    void aBudgetIsAnAmountInTheCurrencyOverACalendarPeriod() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("budget");
        SluiceConfig config = ConfigLoader.load(Fixtures.yamlSources(
                        dir,
                        "limits:",
                        "  - dimension: spend",
                        "    amount: 25.50",
                        "    period: month",
                        "    zone: Europe/Paris",
                        "    resetAt: \"06:00\"",
                        "    level: team",
                        "    warnAt: 0.9")
                .build());
        LimitConfig budget = config.limits().get(0);
        assertThat(budget.id()).isEqualTo("team.spend.month");
        assertThat(budget.capacity()).isEqualTo(25_500_000);
        assertThat(budget.amount()).isEqualTo(25.5);
        assertThat(budget.period()).isEqualTo(CalendarPeriod.MONTH);
        assertThat(budget.algorithm()).isEqualTo(Algorithm.CALENDAR);
        assertThat(budget.resetAt()).isEqualTo(LocalTime.of(6, 0));
        assertThat(budget.zone()).isEqualTo(ZoneId.of("Europe/Paris"));
        assertThat(budget.warnAt()).isEqualTo(0.9);
        LimitConfig plain = LimitConfig.builder()
                .dimension(Dimension.SPEND)
                .amount(1)
                .period(CalendarPeriod.DAY)
                .build();
        assertThat(plain.warnAt()).isEqualTo(LimitConfig.DEFAULT_WARN_AT);
        assertThat(plain.zone()).isEqualTo(ZoneOffset.UTC);
        assertThat(plain.resetAt()).isEqualTo(LocalTime.MIDNIGHT);
    }

    @Test
    void dailyResetDefaultsToMidnightUtcAndOtherAlgorithmsHaveNoResetTime() {
        LimitConfig daily = LimitConfig.builder()
                .dimension(Dimension.SPEND)
                .capacity(5)
                .algorithm(Algorithm.DAILY_RESET)
                .build();
        assertThat(daily.resetAt()).isEqualTo(LocalTime.MIDNIGHT);
        assertThat(daily.zone()).isEqualTo(ZoneOffset.UTC);
        LimitConfig bucket = LimitConfig.of(Dimension.REQUESTS, 5, Duration.ofSeconds(1));
        assertThat(bucket.resetAt()).isNull();
        assertThat(bucket.zone()).isNull();
        assertThat(LimitConfig.concurrency(8).window()).isNull();
    }

    @Test
    void modelGlobsMatchByPrefix() {
        LimitConfig l = LimitConfig.builder()
                .dimension(Dimension.REQUESTS)
                .capacity(1)
                .window(Duration.ofMinutes(1))
                .models(List.of("gpt-4o", "gpt-4.1*"))
                .build();
        assertThat(l.appliesToModel("gpt-4o")).isTrue();
        assertThat(l.appliesToModel("gpt-4.1-mini")).isTrue();
        assertThat(l.appliesToModel("gpt-4o-mini")).isFalse();
        assertThat(LimitConfig.of(Dimension.REQUESTS, 1, Duration.ofMinutes(1)).appliesToModel("anything"))
                .isTrue();
    }

    @Test
    void buildersRejectInvalidValuesNamingEveryProblem() {
        assertThatThrownBy(() -> LimitConfig.builder()
                        .dimension(Dimension.CONCURRENCY)
                        .capacity(-1)
                        .window(Duration.ofMinutes(1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "invalid limit: capacity: -1 is not allowed, must be > 0; window: not allowed for concurrency:"
                                + " a concurrency limit counts calls in flight and has no window");
        assertThatThrownBy(
                        () -> RetryConfig.builder().maxAttempts(0).hintJitter(2).build())
                .hasMessage("invalid retry config: maxAttempts: 0 is not allowed, must be >= 1;"
                        + " hintJitter: 2 is not allowed, must be between 0 and 1");
        assertThatThrownBy(() -> IdentityRule.threadName("("))
                .hasMessageContaining("is not a valid regular expression");
        assertThatThrownBy(() -> MatchConfig.hosts("https://api.openai.com"))
                .hasMessageContaining(
                        "is not a host name; hosts match any scheme and port, put URL prefixes under urls");
    }

    @Test
    void theRootBuilderChecksRulesBetweenSections() {
        assertThatThrownBy(() -> SluiceConfig.builder()
                        .tenant(TenantConfig.builder("a").guaranteedShare(0.7).build())
                        .tenant(TenantConfig.builder("a").guaranteedShare(0.5).build())
                        .limit(LimitConfig.builder()
                                .dimension(Dimension.SPEND)
                                .capacity(1)
                                .window(Duration.ofDays(1))
                                .provider("nobody")
                                .build())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid sluice config: tenants[1].name: \"a\" is already the name of tenants[0];"
                        + " tenants: guaranteed shares add up to 1.2, must be <= 1;"
                        + " limits[0].provider: \"nobody\" names no declared provider (no providers are declared)");
    }

    @Test
    void toBuilderRoundTripsAndWithMethodsDeriveTunedCopies() {
        SluiceConfig base = SluiceConfig.builder()
                .provider(ProviderConfig.builder("openai", ProviderKind.OPENAI)
                        .limit(LimitConfig.of(Dimension.REQUESTS, 500, Duration.ofMinutes(1)))
                        .build())
                .tenant(TenantConfig.of("search", 3))
                .build();
        assertThat(base.toBuilder().build()).isEqualTo(base).hasSameHashCodeAs(base);

        SluiceConfig tuned = base.withMode(Mode.OBSERVE)
                .withTenant(TenantConfig.of("search", 5))
                .withTrafficClass(TrafficClassConfig.builder("interactive")
                        .maxWait(Duration.ofSeconds(1))
                        .build())
                .withLimit(LimitConfig.builder()
                        .id("openai.requests.1m")
                        .dimension(Dimension.REQUESTS)
                        .capacity(450)
                        .window(Duration.ofMinutes(1))
                        .build());
        assertThat(tuned.mode()).isEqualTo(Mode.OBSERVE);
        assertThat(tuned.tenant("search").orElseThrow().weight()).isEqualTo(5);
        assertThat(tuned.trafficClass("interactive").orElseThrow().maxWait()).isEqualTo(Duration.ofSeconds(1));
        assertThat(tuned.trafficClasses()).hasSize(3);
        LimitConfig rpm = tuned.limit("openai.requests.1m").orElseThrow();
        assertThat(rpm.capacity()).isEqualTo(450);
        assertThat(rpm.mirrorsProvider()).isTrue();
        assertThat(base.limit("openai.requests.1m").orElseThrow().capacity()).isEqualTo(500);
        assertThatThrownBy(() -> base.withLimit(LimitConfig.of(Dimension.SPEND, 1, Duration.ofDays(1))))
                .hasMessage("no limit has id organization.spend.1d");
    }

    @Test
    void adapterOptionsAreValidatedByTheBuilderToo() {
        ProviderConfig groq = ProviderConfig.builder("groq", ProviderKind.OPENAI_COMPATIBLE)
                .match(MatchConfig.hosts("api.groq.com"))
                .option("requestsWindow", "PT24H")
                .build();
        assertThat(groq.options()).containsEntry("requestsWindow", "1d");
        assertThat(groq)
                .isEqualTo(groq.toBuilder().option("requestsWindow", "1d").build());
        assertThat(groq).isNotEqualTo(groq.toBuilder().options(Map.of()).build());
        assertThatThrownBy(() -> ProviderConfig.builder("openai", ProviderKind.OPENAI)
                        .option("tokensWindow", "1m")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options: kind openai takes no options");
        assertThat(ProviderKind.OPENAI_COMPATIBLE.adapterOptions())
                .containsExactly("requestsWindow", "tokensWindow", "truesUpTokens");
        assertThat(ProviderKind.FIXED_WINDOW_GATEWAY.adapterOptions()).isEmpty();
    }

    @Test
    void equalityIgnoresOrigin() {
        assertThat(SluiceConfig.builder().origin("somewhere").build()).isEqualTo(SluiceConfig.defaults());
    }

    @Test
    void everyCollectionIsUnmodifiable() {
        SluiceConfig c = SluiceConfig.builder()
                .provider(ProviderConfig.builder("gw", ProviderKind.FIXED_WINDOW_GATEWAY)
                        .match(MatchConfig.hosts("gw.local"))
                        .scope("region", "eu")
                        .limit(LimitConfig.concurrency(8))
                        .build())
                .limit(LimitConfig.builder()
                        .dimension(Dimension.REQUESTS)
                        .capacity(1)
                        .window(Duration.ofSeconds(1))
                        .models(List.of("m"))
                        .build())
                .tenant(TenantConfig.of("t", 1))
                .identity(IdentityConfig.builder()
                        .team(List.of(IdentityRule.callingPackage(Map.of("com.acme", "acme"))))
                        .build())
                .build();
        ProviderConfig gw = c.providers().get(0);
        assertUnmodifiable(c.providers());
        assertUnmodifiable(c.limits());
        assertUnmodifiable(c.allLimits());
        assertUnmodifiable(c.tenants());
        assertUnmodifiable(c.trafficClasses());
        assertUnmodifiable(gw.limits());
        assertUnmodifiable(gw.match().hosts());
        assertUnmodifiable(c.limits().get(0).models());
        assertUnmodifiable(c.identity().tenant());
        assertUnmodifiable(c.identity().team());
        assertUnmodifiable(c.tenants().get(0).limits());
        assertThatThrownBy(() -> gw.scope().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> c.identity().team().get(0).packageValues().put("x", "y"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void buildersCopyTheirInputs() {
        java.util.ArrayList<String> models = new java.util.ArrayList<>(List.of("a"));
        LimitConfig l = LimitConfig.builder()
                .dimension(Dimension.REQUESTS)
                .capacity(1)
                .window(Duration.ofSeconds(1))
                .models(models)
                .build();
        models.add("b");
        assertThat(l.models()).containsExactly("a");
    }

    @Test
    void storeUrlsAreParsedAndPasswordsNeverPrinted() {
        StoreConfig s =
                StoreConfig.builder().url("rediss://app:s3cret@redis_1:6380/2").build();
        assertThat(s.isRedis()).isTrue();
        assertThat(s.tls()).isTrue();
        assertThat(s.host()).isEqualTo("redis_1");
        assertThat(s.port()).isEqualTo(6380);
        assertThat(s.database()).isEqualTo(2);
        assertThat(s.toString()).doesNotContain("s3cret").contains("app:****@");
        assertThat(StoreConfig.builder().url("redis://r").build().port()).isEqualTo(6379);
        assertThatThrownBy(() -> StoreConfig.builder().url("redis://r:99999").build())
                .hasMessageContaining("the port must be a number from 1 to 65535");
    }

    private static void assertUnmodifiable(List<?> list) {
        assertThatThrownBy(() -> list.add(null)).isInstanceOf(UnsupportedOperationException.class);
    }
}
