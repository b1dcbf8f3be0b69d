package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.quota.ProviderScope;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A route in use is renewed off the callers' path rather than resolved again by a caller every
 * 30 s, and the renewal keeps its per-tenant bucket and its key's organization from expiring; a
 * route no longer in use is left to expire.
 */
class RouteRenewalTest extends GovernorFixture {

    /** A call of tenant search: a context of its own, as every call has. */
    private static CallContext call() {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("search")
                .build();
    }

    @BeforeEach
    void perTenantLimit() {
        // a short lease, so an idle per-tenant bucket expires after 67 s (2 windows, a lease, a minute)
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .leaseTimeout(Duration.ofSeconds(5))
                .limit(LimitSpec.builder("tenant", REQUESTS, 100)
                        .window(Duration.ofSeconds(1))
                        .level(ScopeLevel.TENANT)
                        .build())
                .build();
    }

    private void callEverySecondFor(Duration span) {
        for (long s = 0; s < span.toSeconds(); s++) {
            admitted(call()).settle(Usage.NONE);
            timer.advance(Duration.ofSeconds(1));
        }
    }

    /** Routes resolved so far, renewals of a route in use not counted. */
    private long routeResolutions() {
        return governor.holding(() -> governor.routes.resolutions());
    }

    private boolean renewalPlanned() {
        return governor.holding(() -> governor.routeRenewal.isPlanned());
    }

    private Permit admitted(CallContext call) {
        Admission a = governor.tryAdmit(call, Demand.oneRequest());
        assertThat(a.isAdmitted()).isTrue();
        return a.permit();
    }

    @Test
    void aRouteInUseIsResolvedOnceAndKeepsItsBucket() {
        callEverySecondFor(Duration.ofSeconds(1));
        Bucket bucket = governor.controls().limit("tenant").buckets().iterator().next();

        callEverySecondFor(Duration.ofMinutes(5));

        assertThat(routeResolutions()).as("resolved once, renewed since").isEqualTo(1);
        assertThat(bucket.isEvicted()).as("kept while in use").isFalse();
        assertThat(governor.controls().limit("tenant").buckets()).containsExactly(bucket);
    }

    @Test
    void anIdleRouteIsNeitherRenewedNorKept() {
        callEverySecondFor(Duration.ofSeconds(10));
        Bucket bucket = governor.controls().limit("tenant").buckets().iterator().next();

        timer.advance(Duration.ofMinutes(5));

        assertThat(renewalPlanned()).as("no renewal left planned").isFalse();
        callEverySecondFor(Duration.ofSeconds(1));
        assertThat(routeResolutions()).as("resolved again after the idle spell").isEqualTo(2);
        assertThat(bucket.isEvicted()).as("expired while idle").isTrue();
    }

    @Test
    void aKeysOrganizationIsKeptWhileItsRouteIsInUse() {
        // two hours of calls on one key, each answer naming its organization, as OpenAI's do
        answersNameTheOrganization("org-acme", Duration.ofHours(2));

        // another tenant's first call on the same key counts in the organization's scope, not the key's
        assertThat(governor.tryAdmit(keyedCall("b"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.controls().providerScopes().stream().map(ProviderScope::displayName))
                .containsExactly("openai/org-acme/gpt-4o-mini");
    }

    @Test
    void aKeyMovedToAnotherOrganizationCountsThereOnceItsRouteExpires() {
        answersNameTheOrganization("org-acme", Duration.ofMinutes(2));

        answersNameTheOrganization("org-other", Duration.ofMinutes(1));

        CallContext call = keyedCall("a");
        assertThat(governor.tryAdmit(call, Demand.oneRequest()).isAdmitted()).isTrue();
        assertThat(call.cachedRoute.scope.displayName()).isEqualTo("openai/org-other/gpt-4o-mini");
    }

    /** One call of tenant a every 10 s for the span, each answer naming the organization. */
    private void answersNameTheOrganization(String organization, Duration span) {
        List<LearnedBudget> ample = List.of(new LearnedBudget("requests", REQUESTS, 1_000_000, 999_999, 60_000));
        for (long s = 0; s < span.toSeconds(); s += 10) {
            CallContext call = keyedCall("a");
            Permit permit = admitted(call);
            governor.learner()
                    .learn(new ProviderAnswer(call, ample)
                            .organization(organization)
                            .answering(permit));
            permit.settle(Usage.NONE);
            timer.advance(Duration.ofSeconds(10));
        }
    }

    private static CallContext keyedCall(String tenant) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant(tenant)
                .apiKeyId("k_1")
                .build();
    }
}
