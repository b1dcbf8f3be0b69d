package dev.sluice.it.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.retry.RetryRun.Sdk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Answers no wait can fix (402 spend cap, 409 policy, 400, insufficient_quota / spend limits) are
 * attempted exactly once under Sluice, with the real SDK at its defaults, and reach the
 * application as the SDK's usual exception; openai-java and anthropic-java expose the body, which
 * carries the {@code sluice} object.
 */
class NonRetryableIT {

    private static final int THREADS = 2;
    private static final int CALLS = 2;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "OPENAI, budget_exceeded, PermissionDeniedException|UnexpectedStatusCodeException, 402",
        "OPENAI, no_endpoint_for_policy, ConflictException|UnexpectedStatusCodeException, 409",
        "OPENAI, bad_request, BadRequestException, 400",
        "OPENAI, insufficient_quota, RateLimitException, 429",
        "ANTHROPIC, insufficient_quota, EnforcedSpendLimitReachedException|RateLimitException, 429",
        "ANTHROPIC, no_endpoint_for_policy, ConflictException|UnexpectedStatusCodeException, 409",
        "GENAI, bad_request, ClientException, 400",
        "LANGCHAIN4J, insufficient_quota, RateLimitException, 429",
    })
    void answeredOnceAndHandedToTheApplication(Sdk sdk, String fault, String exceptions, int status) throws Exception {
        RetryRun run = RetryRun.run(sdk, true, 0, THREADS, CALLS, fault, false);
        run.record(fault + " (" + status + ")");
        int calls = THREADS * CALLS;
        assertThat(run.attemptsPerCall).as("attempts per call\n%s", run).hasSize(calls);
        assertThat(run.attemptsPerCall.values())
                .as("attempts per call\n%s", run)
                .containsOnly(1);
        assertThat(run.completed()).as("%s", run).isZero();
        long usual = 0;
        for (String type : exceptions.split("\\|")) {
            usual += run.counters("exception:" + type + ":");
        }
        assertThat(usual)
                .as("the SDK's usual exception (%s)\n%s", exceptions, run)
                .isEqualTo(calls);
        if (sdk == Sdk.OPENAI || sdk == Sdk.ANTHROPIC) {
            assertThat(run.counter("sluice:admitted_then_provider_rejected"))
                    .as("error bodies carrying the sluice object\n%s", run)
                    .isEqualTo(calls);
        }
    }

    /** The contrast: openai-java alone retries a 409 (its "lock timeout" rule) twice more. */
    @Test
    void withoutSluiceTheSdkRetriesA409() throws Exception {
        RetryRun run = RetryRun.run(Sdk.OPENAI, false, 0, THREADS, CALLS, "no_endpoint_for_policy", false);
        run.record("no_endpoint_for_policy (409)");
        assertThat(run.attemptsPerCall.values()).as("%s", run).containsOnly(3);
    }

    /** Mode observe takes nothing away: the SDK keeps its own retries, and nothing is counted as declined. */
    @Test
    void inObserveModeTheSdkKeepsItsRetries() throws Exception {
        RetryRun run =
                RetryRun.run(Sdk.OPENAI, true, 0, false, THREADS, CALLS, "no_endpoint_for_policy", false, "observe");
        run.record("no_endpoint_for_policy (409), mode observe");
        assertThat(run.attemptsPerCall.values()).as("%s", run).containsOnly(3);
        assertThat(run.counters("layer:")).as("%s", run).isZero();
    }
}
