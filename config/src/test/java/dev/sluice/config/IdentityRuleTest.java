package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The value-extraction semantics identity rules promise, so every caller resolves them alike. */
class IdentityRuleTest {

    @Test
    void threadNameTakesTheNamedGroupValueFirst() {
        IdentityRule r = IdentityRule.threadName("^(pool)-tenant-(?<value>[^-]+)-");
        assertThat(r.valueFromThreadName("pool-tenant-search-7")).isEqualTo("search");
        assertThat(r.valueFromThreadName("main")).isNull();
    }

    @Test
    void threadNameFallsBackToGroupOneThenTheWholeMatch() {
        assertThat(IdentityRule.threadName("tenant-([a-z]+)").valueFromThreadName("x-tenant-batch-1"))
                .isEqualTo("batch");
        assertThat(IdentityRule.threadName("reports").valueFromThreadName("nightly-reports-3"))
                .isEqualTo("reports");
    }

    @Test
    void callingPackageUsesTheLongestPrefixOnPackageBoundaries() {
        Map<String, String> packages = new LinkedHashMap<>();
        packages.put("com.acme", "acme");
        packages.put("com.acme.search", "search");
        IdentityRule r = IdentityRule.callingPackage(packages);
        assertThat(r.valueForClass("com.acme.search.v2.Api")).isEqualTo("search");
        assertThat(r.valueForClass("com.acme.billing.Job")).isEqualTo("acme");
        assertThat(r.valueForClass("com.acme.searchx.Api")).isEqualTo("acme");
        assertThat(r.valueForClass("org.other.Thing")).isNull();
    }
}
