package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The simulator as providers behave in the field: limits per organization with the
 * organization named on every answer, failed requests counted or not, Anthropic's rounding. Each
 * is opt-in; without it the simulator behaves as before.
 */
class FieldTest {
    private final FakeClock clock = new FakeClock();

    private static HttpResponse<String> openAi(Simulator sim, String key, String body) {
        return Http.post(sim.apiBaseUrl() + "/chat/completions", body, "Authorization", "Bearer " + key);
    }

    private static HttpResponse<String> anthropic(Simulator sim, String key, String body) {
        return Http.post(sim.apiBaseUrl() + "/v1/messages", body, "x-api-key", key, "anthropic-version", "2023-06-01");
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @Test
    void keysOfOneOrganizationShareItsLimitsAndEveryAnswerNamesIt() {
        try (Simulator sim = Simulator.builder()
                .clock(clock)
                .profile(Profile.OPENAI)
                .instant()
                .limit(Dimension.REQUESTS, 3, Duration.ofSeconds(10))
                .organization("org-a", "sk-1", "sk-2")
                .start()) {
            HttpResponse<String> first = openAi(sim, "sk-1", Bodies.chat());
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(header(first, "openai-organization")).isEqualTo("org-a");
            assertThat(header(first, "x-ratelimit-remaining-requests")).isEqualTo("2");
            // The other key draws on the same organization's bucket and sees its count.
            HttpResponse<String> second = openAi(sim, "sk-2", Bodies.chat());
            assertThat(header(second, "x-ratelimit-remaining-requests")).isEqualTo("1");
            assertThat(openAi(sim, "sk-2", Bodies.chat()).statusCode()).isEqualTo(200);
            HttpResponse<String> refused = openAi(sim, "sk-1", Bodies.chat());
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(header(refused, "openai-organization")).isEqualTo("org-a");
            assertThat(refused.body()).contains("in organization org-a");
            // Errors before the limits name it too.
            HttpResponse<String> bad =
                    Http.post(sim.apiBaseUrl() + "/chat/completions", "{nope", "Authorization", "Bearer sk-2");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(header(bad, "openai-organization")).isEqualTo("org-a");
            assertThat(sim.ledger().query().forOrganization("org-a").counts().arrivals())
                    .isEqualTo(5);
        }
    }

    @Test
    void aKeyNobodyMappedIsItsOwnOrganizationWhenAsked() {
        try (Simulator sim = Simulator.builder()
                .clock(clock)
                .profile(Profile.OPENAI)
                .instant()
                .limit(Dimension.REQUESTS, 1, Duration.ofSeconds(10))
                .organization("org-a", "sk-1")
                .eachUnmappedKeyItsOwnOrganization()
                .start()) {
            HttpResponse<String> x = openAi(sim, "sk-x", Bodies.chat());
            HttpResponse<String> y = openAi(sim, "sk-y", Bodies.chat());
            assertThat(x.statusCode()).isEqualTo(200);
            assertThat(y.statusCode()).isEqualTo(200);
            assertThat(header(x, "openai-organization"))
                    .startsWith("org-")
                    .hasSize(28)
                    .isNotEqualTo(header(y, "openai-organization"));
            assertThat(openAi(sim, "sk-x", Bodies.chat()).statusCode()).isEqualTo(429);
        }
    }

    @Test
    void withoutOrganizationsNothingChanges() {
        try (Simulator sim = Simulator.builder()
                .clock(clock)
                .profile(Profile.OPENAI)
                .instant()
                .limit(Dimension.REQUESTS, 1, Duration.ofSeconds(10))
                .start()) {
            assertThat(sim.limits().get(0).scope()).isEqualTo(Scope.API_KEY);
            HttpResponse<String> r = openAi(sim, "sk-1", Bodies.chat());
            assertThat(header(r, "openai-organization")).isNull();
            assertThat(openAi(sim, "sk-2", Bodies.chat()).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void anExplicitKeyScopeWinsOverTheOrganizations() {
        Simulator.Builder b = Simulator.builder()
                .profile(Profile.OPENAI)
                .limit(Dimension.REQUESTS, 1, Duration.ofSeconds(10))
                .organization("org-a", "sk-1");
        assertThat(b.resolvedLimits().get(0).scope()).isEqualTo(Scope.ORGANIZATION);
        assertThat(b.keyScope(Scope.API_KEY).resolvedLimits().get(0).scope()).isEqualTo(Scope.API_KEY);
        assertThatThrownBy(() -> b.organization("org-b", "sk-1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anthropicNamesTheOrganizationById() {
        try (Simulator sim = Simulator.builder()
                .clock(clock)
                .profile(Profile.ANTHROPIC)
                .instant()
                .organization("5a1e0000-0000-4000-8000-00000000000a", "sk-ant-1", "sk-ant-2")
                .eachUnmappedKeyItsOwnOrganization()
                .start()) {
            HttpResponse<String> r = anthropic(sim, "sk-ant-2", Bodies.anthropic(40, 16, false));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(header(r, "anthropic-organization-id")).isEqualTo("5a1e0000-0000-4000-8000-00000000000a");
            String other =
                    header(anthropic(sim, "sk-ant-9", Bodies.anthropic(40, 16, false)), "anthropic-organization-id");
            assertThat(java.util.UUID.fromString(other).toString()).isEqualTo(other);
        }
    }

    /** One request a second, burst one; a request refused half-way through the second. */
    private int afterARefusal(Boolean countRefused) {
        Simulator.Builder b = Simulator.builder()
                .clock(clock)
                .profile(Profile.OPENAI)
                .instant()
                .limit(Limit.of(Dimension.REQUESTS, 1, Duration.ofSeconds(1)).burst(1));
        if (countRefused != null) {
            b.countRefusedRequests(countRefused);
        }
        try (Simulator sim = b.start()) {
            assertThat(openAi(sim, "sk-1", Bodies.chat()).statusCode()).isEqualTo(200);
            clock.advance(Duration.ofMillis(500));
            assertThat(openAi(sim, "sk-1", Bodies.chat()).statusCode()).isEqualTo(429);
            clock.advance(Duration.ofMillis(500));
            return openAi(sim, "sk-1", Bodies.chat()).statusCode();
        }
    }

    @Test
    void openAiCountsARefusedRequestAgainstTheRequestBudgetByDefault() {
        // The refusal took the half request that had refilled: a second after the success, no room.
        assertThat(afterARefusal(null)).isEqualTo(429);
        assertThat(afterARefusal(true)).isEqualTo(429);
    }

    @Test
    void countingRefusedRequestsCanBeTurnedOff() {
        assertThat(afterARefusal(false)).isEqualTo(200);
    }

    @Test
    void otherProfilesCountRefusedRequestsOnlyWhenAsked() {
        for (boolean count : new boolean[] {false, true}) {
            Simulator.Builder b = Simulator.builder()
                    .clock(clock)
                    .profile(Profile.ANTHROPIC)
                    .instant()
                    .limit(Dimension.REQUESTS, 10, Duration.ofSeconds(10))
                    .limit(Dimension.INPUT_TOKENS, 100, Duration.ofSeconds(10));
            if (count) {
                b.countRefusedRequests(true);
            }
            try (Simulator sim = b.start()) {
                // Too large for the input bucket: refused, the request bucket charged or not.
                HttpResponse<String> r = anthropic(sim, "sk-ant", Bodies.anthropic(4_000, 16, false));
                assertThat(r.statusCode()).isEqualTo(429);
                assertThat(header(r, "anthropic-ratelimit-requests-remaining")).isEqualTo("10");
                HttpResponse<String> next = anthropic(sim, "sk-ant", Bodies.anthropic(40, 16, false));
                assertThat(header(next, "anthropic-ratelimit-requests-remaining"))
                        .isEqualTo(count ? "8" : "9");
            }
        }
    }

    @Test
    void anthropicRoundsTokensRemainingToTheThousandUnlessToldNot() {
        for (boolean round : new boolean[] {true, false}) {
            try (Simulator sim = Simulator.builder()
                    .clock(clock)
                    .profile(Profile.ANTHROPIC)
                    .instant()
                    .limit(Dimension.INPUT_TOKENS, 10_000, Duration.ofMinutes(1))
                    .limit(Dimension.OUTPUT_TOKENS, 10_000, Duration.ofMinutes(1))
                    .roundTokensRemaining(round)
                    .start()) {
                // 2,400 characters are 600 input tokens: 9,400 left.
                HttpResponse<String> r = anthropic(sim, "sk-ant", Bodies.anthropic(2_400, 16, false));
                assertThat(header(r, "anthropic-ratelimit-input-tokens-remaining"))
                        .isEqualTo(round ? "9000" : "9400");
            }
        }
    }

    @Test
    void theLedgerKeepsWhatTheNeighbourTookApartFromTheExchanges() {
        try (Simulator sim = Simulator.builder()
                .clock(clock)
                .profile(Profile.OPENAI)
                .instant()
                .limit(Dimension.REQUESTS, 100, Duration.ofSeconds(10))
                .limit(Dimension.TOKENS, 100_000, Duration.ofSeconds(10))
                .organization("org-a", "sk-1")
                .neighbour("org-a", 0.4)
                .start()) {
            java.time.Instant start = clock.instant();
            assertThat(openAi(sim, "sk-1", Bodies.chat()).statusCode()).isEqualTo(200);
            clock.advance(Duration.ofSeconds(10));
            HttpResponse<String> later = openAi(sim, "sk-1", Bodies.chat());
            // The headers report the organization's bucket, the neighbour's use included.
            assertThat(Long.parseLong(header(later, "x-ratelimit-remaining-requests")))
                    .isEqualTo(98);
            clock.advance(Duration.ofSeconds(10));
            sim.catchUpNeighbours();
            java.time.Instant end = clock.instant();
            assertThat(sim.ledger().neighbourTaken("org-a", Dimension.REQUESTS, start, end))
                    .isEqualTo(80);
            assertThat(sim.ledger().neighbourTaken("org-a", Dimension.TOKENS, start, end))
                    .isEqualTo(80_000);
            assertThat(sim.ledger().neighbourTaken("org-a", Dimension.REQUESTS, start, start.plusSeconds(5)))
                    .isEqualTo(20);
            assertThat(sim.ledger().neighbourTaken("org-b", Dimension.REQUESTS, start, end))
                    .isZero();
            assertThat(sim.ledger().exchanges()).hasSize(2);
            sim.reset();
            assertThat(sim.ledger().neighbourUses()).isEmpty();
        }
    }
}
