package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static dev.sluice.config.Dimension.TOTAL_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.quota.ProviderScope;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * Footprint: what a governor keeps for 10,000 distinct tenants and 1,000 API keys seen
 * within an hour, measured in bytes (JOL's {@link GraphLayout} of everything reachable from the
 * governor, minus the same governor after a single call), and that per-tenant and per-key state
 * goes away once idle. Driven on the fixture's fake clock; nothing here depends on time passing.
 *
 * <p>The governor has what makes per-value state: a token limit per tenant, a request limit per API
 * key, one per organization, and a budget learned from the provider for the organization's scope,
 * so each call also goes through the scope's {@code TenantShares}.
 */
class FootprintTest extends GovernorFixture {

    static {
        // the fixture's clock and timer hold lambdas (hidden classes), whose field offsets
        // Unsafe refuses; JOL then finds them by its own probe
        System.setProperty("jol.magicFieldOffset", "true");
    }

    static final int TENANTS = 10_000;
    static final int KEYS = 1_000;
    /**
     * Design goal: under 16 MB retained with 10,000 tenants and 1,000 keys, the whole
     * graph. Each token bucket that lent room to the lock-free lane holds a {@code LaneCredit}; it
     * keeps a padded cell only for the stripes it lent to (one here: one thread), where it used to
     * keep eight (~1 KB a bucket, 11 MB for 11,000 per-value buckets, 19.2 MB in all).
     */
    static final long BOUND_BYTES = 16L * 1024 * 1024;
    /**
     * Once every tenant has been idle for two hours, what may stay: the status counters of up to
     * 10,000 tenants (bounded by count, least recently seen first, not by idleness; see
     * {@code GovernorStats}) and nothing per bucket, route or share. Half the bound.
     */
    static final long IDLE_BOUND_BYTES = BOUND_BYTES / 2;

    private static CallContext call(int tenant) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("tenant-" + tenant)
                .apiKeyId("key-" + (tenant % KEYS))
                .organization("org-1")
                .build();
    }

    private static final Demand DEMAND =
            Demand.builder().requests(1).inputTokens(2_000).outputTokens(500).build();
    private static final Usage USAGE =
            Usage.builder().inputTokens(1_900).outputTokens(400).build();

    private void build() {
        governor(
                LimitSpec.perWindow("org-requests", REQUESTS, 1_000_000_000L, Duration.ofMinutes(1)),
                LimitSpec.builder("tenant-tokens", TOTAL_TOKENS, 1_000_000_000L)
                        .window(Duration.ofMinutes(1))
                        .level(ScopeLevel.TENANT)
                        .build(),
                LimitSpec.builder("key-requests", REQUESTS, 1_000_000L)
                        .window(Duration.ofMinutes(1))
                        .level(ScopeLevel.API_KEY)
                        .build());
    }

    private void oneCall(int tenant) {
        CallContext c = call(tenant);
        Admission a = governor.tryAdmit(c, DEMAND);
        assertThat(a.isAdmitted()).as("call of tenant %d admitted", tenant).isTrue();
        a.permit().settleAndRelease(USAGE);
    }

    @Test
    void tenThousandTenantsAndAThousandKeysStayUnderTheBoundAndGoAwayWhenIdle() {
        build();
        oneCall(0);
        governor.learner()
                .learn(new ProviderAnswer(
                                call(0),
                                List.of(new LearnedBudget("requests", REQUESTS, 1_000_000_000L, 999_999_999L, 60_000)))
                        .organization("org-1"));
        oneCall(0);
        GraphLayout before = GraphLayout.parseInstance(governor);
        long baseline = before.totalSize();

        // every tenant calls within 10 s (1 ms apart): the worst case, all of them still live
        for (int t = 0; t < TENANTS; t++) {
            clock.advance(Duration.ofMillis(1));
            timer.advance(Duration.ZERO);
            oneCall(t);
        }
        GraphLayout after = GraphLayout.parseInstance(governor);
        // sizes by difference of totals (the graph also reaches the test's class loader, ~12 MB,
        // the same before and after); subtract() matches objects by address, which a GC may move
        long busy = after.totalSize() - baseline;
        long credits = after.getClassCounts().count(dev.sluice.core.quota.LaneCredit.class)
                - before.getClassCounts().count(dev.sluice.core.quota.LaneCredit.class);
        long perCredit = GraphLayout.parseInstance(governor.controls()
                        .limit("tenant-tokens")
                        .buckets()
                        .iterator()
                        .next()
                        .laneLender()
                        .credit())
                .totalSize();
        long lane = credits * perCredit;
        System.out.printf(
                "footprint: baseline %,d B; after %,d tenants / %,d keys: +%,d B (%.2f MB, %.0f B per tenant),"
                        + " of which %,d lane credits of %,d B: %.2f MB%n",
                baseline,
                TENANTS,
                KEYS,
                busy,
                busy / 1048576.0,
                busy / (double) TENANTS,
                credits,
                perCredit,
                lane / 1048576.0);
        assertThat(governor.controls().limit("tenant-tokens").buckets()).hasSize(TENANTS);
        assertThat(governor.controls().limit("key-requests").buckets()).hasSize(KEYS);
        assertThat(busy)
                .as("bytes retained for %d tenants, %d keys", TENANTS, KEYS)
                .isLessThan(BOUND_BYTES);
        for (ProviderScope s : governor.controls().providerScopes()) {
            assertThat(s.tenantShares().activeTenants())
                    .as("tenants followed by the shares of %s", s)
                    .isLessThanOrEqualTo(256);
        }

        // two hours without a call from any of them, then one call of a new tenant
        for (int minute = 0; minute < 120; minute++) {
            clock.advance(Duration.ofMinutes(1));
            timer.advance(Duration.ZERO);
        }
        oneCall(TENANTS);
        long idle = GraphLayout.parseInstance(governor).totalSize() - baseline;
        System.out.printf("footprint: after two idle hours and one call: +%,d B (%.2f MB)%n", idle, idle / 1048576.0);
        assertThat(governor.controls().limit("tenant-tokens").buckets())
                .as("per-tenant buckets left")
                .hasSizeLessThanOrEqualTo(2);
        assertThat(governor.controls().limit("key-requests").buckets())
                .as("per-key buckets left")
                .hasSizeLessThanOrEqualTo(2);
        for (ProviderScope s : governor.controls().providerScopes()) {
            assertThat(s.tenantShares().activeTenants())
                    .as("tenants still followed by the shares of %s", s)
                    .isLessThanOrEqualTo(1);
        }
        assertThat(idle).as("bytes retained after every tenant went idle").isLessThan(IDLE_BOUND_BYTES);
        assertThat(idle).as("idle state is smaller than busy state").isLessThan(busy);
    }
}
