package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.ProviderScope;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * OpenAI and Anthropic count limits per organization, and name it on every answer: learned limits
 * belong to the organization, shared by all its keys, not to the key that happened to read them.
 */
class OrganizationScopeTest extends GovernorFixture {

    private static CallContext call(String keyId) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("t-" + keyId)
                .apiKeyId(keyId)
                .build();
    }

    /** 60 a minute, 3 left: with the quarter second a mirror keeps back, room for 2 calls. */
    private static List<LearnedBudget> threeLeft() {
        return List.of(new LearnedBudget("requests", REQUESTS, 60, 3, 60_000));
    }

    private List<String> scopeNames() {
        return governor.controls().providerScopes().stream()
                .map(ProviderScope::displayName)
                .sorted()
                .collect(Collectors.toList());
    }

    @Test
    void keysOfOneOrganizationShareTheBudgetItsAnswersAnnounce() {
        governor();
        governor.learner().learn(new ProviderAnswer(call("k_1"), threeLeft()).organization("org-acme"));
        governor.learner().learn(new ProviderAnswer(call("k_2"), threeLeft()).organization("org-acme"));

        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("k_2"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        Admission third = governor.tryAdmit(call("k_1"), Demand.oneRequest());
        assertThat(third.isAdmitted()).as("one budget for both keys").isFalse();
        assertThat(third.rejection().scope()).isEqualTo("openai/org-acme/gpt-4o-mini");
        assertThat(scopeNames()).containsExactly("openai/org-acme/gpt-4o-mini");
    }

    @Test
    void keysOfDifferentOrganizationsKeepTheirOwnBudgets() {
        governor();
        governor.learner().learn(new ProviderAnswer(call("k_1"), threeLeft()).organization("org-acme"));
        governor.learner().learn(new ProviderAnswer(call("k_2"), threeLeft()).organization("org-other"));
        for (int i = 0; i < 2; i++) {
            assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                    .isTrue();
            assertThat(governor.tryAdmit(call("k_2"), Demand.oneRequest()).isAdmitted())
                    .isTrue();
        }
        assertThat(scopeNames()).containsExactly("openai/org-acme/gpt-4o-mini", "openai/org-other/gpt-4o-mini");
    }

    @Test
    void whatAKeyLearnedBeforeItsOrganizationWasKnownIsMergedNotDoubled() {
        governor();
        governor.learner()
                .learn(new ProviderAnswer(call("k_1"), threeLeft())); // an answer without the organization header
        governor.learner().learn(new ProviderAnswer(call("k_2"), threeLeft()).organization("org-acme"));
        governor.learner().learn(new ProviderAnswer(call("k_1"), threeLeft()).organization("org-acme"));

        assertThat(scopeNames()).containsExactly("openai/org-acme/gpt-4o-mini");
        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("k_2"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .isFalse();
    }

    @Test
    void aPauseTheKeyHeldCarriesOverToItsOrganization() {
        governor();
        governor.tryAdmit(call("k_1"), Demand.oneRequest()).permit().settle(Usage.NONE);
        governor.learner().pauseProviderScope(call("k_1"), Duration.ofSeconds(2).toNanos());
        governor.learner().learn(new ProviderAnswer(call("k_1"), List.of()).organization("org-acme"));
        Admission paused = governor.tryAdmit(call("k_2"), Demand.oneRequest());
        governor.learner().learn(new ProviderAnswer(call("k_2"), List.of()).organization("org-acme"));
        Admission stillPaused = governor.tryAdmit(call("k_2"), Demand.oneRequest());
        assertThat(paused.isAdmitted())
                .as("k_2 on its own before its organization was known")
                .isTrue();
        assertThat(stillPaused.isAdmitted())
                .as("k_2 in the organization's pause")
                .isFalse();
    }

    @Test
    void anOrganizationTheRequestNamesWinsOverTheOneAnAnswerNames() {
        governor();
        CallContext named = CallContext.builder("openai")
                .model("gpt-4o-mini")
                .apiKeyId("k_1")
                .organization("org-named")
                .build();
        governor.tryAdmit(named, Demand.oneRequest()).permit().settle(Usage.NONE);
        governor.learner().learn(new ProviderAnswer(named, threeLeft()).organization("org-answered"));
        assertThat(scopeNames()).containsExactly("openai/org-named/gpt-4o-mini");
    }

    @Test
    void anOrganizationSeenAdoptedOnARouteIsLeftWhenAnAnswerNamesAnother() {
        governor();
        List<LearnedBudget> ample = List.of(new LearnedBudget("requests", REQUESTS, 600, 500, 60_000));
        CallContext first = call("k_1");
        governor.tryAdmit(first, Demand.oneRequest()).permit().settle(Usage.NONE);
        governor.learner()
                .learn(new ProviderAnswer(first, ample)
                        .organization("org-acme")); // adopted: the key's own scope is retired
        CallContext second = call("k_1");
        Permit inAcme = governor.tryAdmit(second, Demand.oneRequest()).permit();
        inAcme.settle(Usage.NONE);
        governor.learner()
                .learn(new ProviderAnswer(second, ample).organization("org-acme")); // seen adopted, kept on the route
        governor.learner().learn(new ProviderAnswer(second, ample).organization("org-acme")); // answered from the route
        governor.learner()
                .learn(new ProviderAnswer(second, ample).organization("org-other")); // the key now counts elsewhere
        clock.advance(Duration.ofSeconds(31)); // once the route resolves again, as before

        Permit inOther = governor.tryAdmit(call("k_1"), Demand.oneRequest()).permit();
        assertThat(inAcme.providerScopeKey()).contains("org-acme");
        assertThat(inOther.providerScopeKey()).contains("org-other");
        assertThat(scopeNames()).contains("openai/org-other/gpt-4o-mini");
    }
}
