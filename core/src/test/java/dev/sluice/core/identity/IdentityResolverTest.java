package dev.sluice.core.identity;

import static dev.sluice.core.identity.IdentitySource.apiKeyId;
import static dev.sluice.core.identity.IdentitySource.constant;
import static dev.sluice.core.identity.IdentitySource.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.IdentityRule;
import dev.sluice.core.provider.Headers;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.spi.MDCAdapter;

/** Who a call is for, from the first configured source that has a value. */
class IdentityResolverTest {

    private static final String KEY_ID = "k_3f9a1c";

    // ------------------------------------------------------------------ defaults

    @Test
    void byDefaultTheTenantIsTheTenantHeader() {
        Identity id = IdentityResolver.defaults().resolve(headers("x-sluice-tenant", "search"), KEY_ID);
        assertThat(id.tenant()).isEqualTo("search");
    }

    @Test
    void byDefaultACallWithoutTheTenantHeaderIsCountedForItsApiKey() {
        Identity id = IdentityResolver.defaults().resolve(Headers.empty(), KEY_ID);
        assertThat(id.tenant()).isEqualTo(KEY_ID);
    }

    @Test
    void aCallNothingIdentifiesIsCountedForTheUnknownTenant() {
        Identity id = IdentityResolver.defaults().resolve(Headers.empty(), null);
        assertThat(id.tenant()).isEqualTo(IdentityResolver.UNKNOWN_TENANT).isEqualTo("unknown");
    }

    @Test
    void byDefaultTheClassIsTheClassHeaderElseDefaultAndThereIsNoTeam() {
        IdentityResolver resolver = IdentityResolver.defaults();
        assertThat(resolver.resolve(headers("X-Sluice-Class", "batch"), KEY_ID).trafficClass())
                .isEqualTo("batch");
        Identity plain = resolver.resolve(Headers.empty(), KEY_ID);
        assertThat(plain.trafficClass()).isEqualTo("default");
        assertThat(plain.team()).isNull();
    }

    @Test
    void withNoRuleThatYieldsTheTenantIsUnknownAndTheClassDefault() {
        IdentityResolver resolver = new IdentityResolver(
                List.of(header("X-Tenant")), List.of(header("X-Team")), List.of(header("X-Class")));
        Identity id = resolver.resolve(Headers.empty(), KEY_ID);
        assertThat(id.tenant()).isEqualTo("unknown");
        assertThat(id.team()).isNull();
        assertThat(id.trafficClass()).isEqualTo("default");
    }

    // ------------------------------------------------------------------ order

    @Test
    void theFirstRuleWithAValueWins() {
        IdentityResolver resolver = tenantFrom(header("X-Tenant"), apiKeyId(), constant("everyone"));
        assertThat(resolver.resolve(headers("X-Tenant", "search"), KEY_ID).tenant())
                .isEqualTo("search");
        assertThat(resolver.resolve(Headers.empty(), KEY_ID).tenant()).isEqualTo(KEY_ID);
        assertThat(resolver.resolve(Headers.empty(), null).tenant()).isEqualTo("everyone");
    }

    @Test
    void anEmptyHeaderIsNoValue() {
        IdentityResolver resolver = tenantFrom(header("X-Tenant"), constant("everyone"));
        assertThat(resolver.resolve(headers("X-Tenant", "  "), KEY_ID).tenant()).isEqualTo("everyone");
    }

    @Test
    void aSourceThatBreaksYieldsNothingRatherThanBreakingTheCall() {
        IdentitySource broken = new IdentitySource() {
            @Override
            public String valueFor(Request request) {
                throw new IllegalStateException("boom");
            }
        };
        assertThat(tenantFrom(broken, apiKeyId())
                        .resolve(Headers.empty(), KEY_ID)
                        .tenant())
                .isEqualTo(KEY_ID);
    }

    @Test
    void tenantTeamAndClassEachHaveTheirOwnRules() {
        IdentityResolver resolver = new IdentityResolver(
                List.of(header("X-Tenant")), List.of(header("X-Team")), List.of(constant("interactive")));
        Identity id = resolver.resolve(headers("X-Tenant", "search", "X-Team", "relevance"), KEY_ID);
        assertThat(id.tenant()).isEqualTo("search");
        assertThat(id.team()).isEqualTo("relevance");
        assertThat(id.trafficClass()).isEqualTo("interactive");
    }

    // ------------------------------------------------------------------ sources

    @Test
    void aSystemPropertyNamesTheTenantOfTheWholeProcess() {
        String property = "sluice.test.tenant." + System.nanoTime();
        IdentityResolver resolver = tenantFrom(IdentitySource.systemProperty(property), constant("everyone"));
        assertThat(resolver.resolve(Headers.empty(), KEY_ID).tenant()).isEqualTo("everyone");
        System.setProperty(property, "billing");
        try {
            assertThat(resolver.resolve(Headers.empty(), KEY_ID).tenant()).isEqualTo("billing");
        } finally {
            System.clearProperty(property);
        }
    }

    @Test
    void aThreadNameRuleReadsTheCallingThreadsName() throws InterruptedException {
        IdentityRule rule = IdentityRule.threadName("^batch-(?<value>[a-z]+)-\\d+$");
        IdentityResolver resolver =
                tenantFrom(IdentitySource.threadName(rule::valueFromThreadName, rule.argument()), constant("everyone"));

        assertThat(onThreadNamed(
                        "batch-billing-7",
                        () -> resolver.resolve(Headers.empty(), KEY_ID).tenant()))
                .isEqualTo("billing");
        assertThat(onThreadNamed(
                        "http-nio-8080-exec-1",
                        () -> resolver.resolve(Headers.empty(), KEY_ID).tenant()))
                .isEqualTo("everyone");
    }

    @Test
    void aCallingPackageRuleReadsTheCodeOnTheCallingStack() {
        // this test is run by JUnit: its classes are on the stack below the call
        IdentityRule junit = IdentityRule.callingPackage(Map.of("org.junit", "tests"));
        IdentityRule elsewhere = IdentityRule.callingPackage(Map.of("com.acme.search", "search"));

        assertThat(tenantFrom(callingPackage(junit), constant("everyone"))
                        .resolve(Headers.empty(), KEY_ID)
                        .tenant())
                .isEqualTo("tests");
        assertThat(tenantFrom(callingPackage(elsewhere), constant("everyone"))
                        .resolve(Headers.empty(), KEY_ID)
                        .tenant())
                .isEqualTo("everyone");
    }

    @Test
    void anMdcRuleReadsTheCallingThreadsMdc() throws Exception {
        IdentityResolver resolver = tenantFrom(IdentitySource.mdc("tenant"), constant("everyone"));
        withRealMdc(() -> {
            assertThat(resolver.resolve(Headers.empty(), KEY_ID).tenant()).isEqualTo("everyone");
            MDC.put("tenant", "checkout");
            assertThat(resolver.resolve(Headers.empty(), KEY_ID).tenant()).isEqualTo("checkout");
        });
    }

    @Test
    void anMdcRuleYieldsNothingWhenTheApplicationHasNoSlf4j() throws Exception {
        IdentityResolver resolver = tenantFrom(IdentitySource.mdc("tenant"), constant("everyone"));
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        withRealMdc(() -> {
            MDC.put("tenant", "checkout"); // Sluice's own SLF4J: not the application's
            try (URLClassLoader withoutSlf4j = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
                Thread.currentThread().setContextClassLoader(withoutSlf4j);
                assertThat(resolver.resolve(Headers.empty(), KEY_ID).tenant()).isEqualTo("everyone");
            } finally {
                Thread.currentThread().setContextClassLoader(before);
            }
        });
    }

    @Test
    void anApiKeyIdRuleYieldsTheKeysShortHash() {
        IdentityResolver resolver = tenantFrom(apiKeyId());
        assertThat(resolver.resolve(Headers.empty(), KEY_ID).tenant()).isEqualTo(KEY_ID);
    }

    // ------------------------------------------------------------------ fixtures

    private static IdentityResolver tenantFrom(IdentitySource... sources) {
        return new IdentityResolver(List.of(sources), List.of(), List.of());
    }

    private static IdentitySource callingPackage(IdentityRule rule) {
        return IdentitySource.callingPackage(
                rule::valueForClass, rule.packageValues().keySet().toString());
    }

    private static Headers headers(String... namesAndValues) {
        Map<String, List<String>> raw = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            raw.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
        }
        return Headers.of(raw);
    }

    private static <T> T onThreadNamed(String name, Supplier<T> work) throws InterruptedException {
        AtomicReference<T> result = new AtomicReference<>();
        Thread thread = new Thread(() -> result.set(work.get()), name);
        thread.start();
        thread.join();
        return result.get();
    }

    private interface MdcWork {
        void run() throws Exception;
    }

    /**
     * The test classpath's SLF4J binding (slf4j-simple) keeps no MDC; an application's logging
     * backend does. Installs SLF4J's own map-backed MDC for the duration.
     */
    private static void withRealMdc(MdcWork work) throws Exception {
        Method install = MDC.class.getDeclaredMethod("setMDCAdapter", MDCAdapter.class);
        install.setAccessible(true);
        MDCAdapter before = MDC.getMDCAdapter();
        install.invoke(null, new BasicMDCAdapter());
        try {
            work.run();
        } finally {
            MDC.clear();
            install.invoke(null, before);
        }
    }
}
