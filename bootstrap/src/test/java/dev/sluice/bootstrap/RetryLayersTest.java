package dev.sluice.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RetryLayersTest {

    /** A governance that owns retries (or not) and governs nothing else. */
    private static Governance owning(boolean owns) {
        return new Governance() {
            @Override
            public boolean governs(String url) {
                return true;
            }

            @Override
            public CallOutcome execute(HttpTransport transport) {
                throw new UnsupportedOperationException();
            }

            @Override
            public CompletableFuture<Object> executeAsync(HttpTransport transport) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean ownsRetries() {
                return owns;
            }
        };
    }

    @AfterEach
    void passThrough() {
        Bridge.install(Governance.PASS_THROUGH);
        RetryLayers.endWatch();
    }

    @Test
    void onlyAGovernanceInEnforceModeOwnsRetries() {
        assertThat(RetryLayers.ownsRetries()).isFalse();
        Bridge.install(owning(false));
        assertThat(RetryLayers.ownsRetries()).isFalse();
        Bridge.install(owning(true));
        assertThat(RetryLayers.ownsRetries()).isTrue();
    }

    @Test
    void anAnswerTheSdksRuleWouldHaveRetriedCountsAsDeclinedOnlyWhenSluiceOwnsRetries() {
        String layer = "stainless-rule-test";
        RetryLayers.declinedStatusRetry(layer, 429); // pass-through: the SDK itself decided
        Bridge.install(owning(true));
        for (int status : new int[] {408, 409, 429, 500, 529}) {
            RetryLayers.declinedStatusRetry(layer, status);
        }
        for (int status : new int[] {200, 400, 401, 404}) {
            RetryLayers.declinedStatusRetry(layer, status);
        }
        assertThat(RetryLayers.snapshot().get(layer)).containsEntry("declined", 5L);
    }

    @Test
    void aFailureSluiceDecidedIsRecognisedThroughTheSdksWrapper() {
        Bridge.install(owning(true));
        IOException reset = new IOException("connection reset");
        RetryLayers.decided(reset);
        RuntimeException wrapped = new RuntimeException("Request failed", reset);

        assertThat(RetryLayers.declineRetryOf("sdk-a", wrapped)).isTrue();
        assertThat(RetryLayers.declineRetryOf("sdk-a", new IOException("not Sluice's")))
                .isFalse();
        assertThat(RetryLayers.snapshot().get("sdk-a")).containsEntry("declined", 1L);

        Bridge.install(owning(false)); // mode observe: the SDK keeps its retries
        assertThat(RetryLayers.declineRetryOf("sdk-a", wrapped)).isFalse();
    }

    @Test
    void aWatchedAttemptThatWentThroughSluiceEndsTheLoop() throws Exception {
        Bridge.install(owning(true));
        UncheckedIOException refused = new UncheckedIOException(new IOException("429"));
        Callable<String> governed = RetryLayers.watch(
                "loop",
                () -> {
                    RetryLayers.governedOnThisThread();
                    throw refused;
                },
                2);
        assertThatThrownBy(governed::call).isSameAs(refused);
        assertThat(RetryLayers.takeDeclinedFailure("loop")).isSameAs(refused);
        assertThat(RetryLayers.takeDeclinedFailure("loop")).as("taken once").isNull();

        Callable<String> elsewhere = RetryLayers.watch(
                "loop",
                () -> {
                    throw new IllegalStateException("a host Sluice does not govern");
                },
                2);
        assertThatThrownBy(elsewhere::call).isInstanceOf(IllegalStateException.class);
        assertThat(RetryLayers.takeDeclinedFailure("loop"))
                .as("the loop retries as written")
                .isNull();
    }

    @Test
    void nothingIsWatchedWhenSluiceDoesNotOwnRetriesOrTheLoopWouldNotRetry() {
        Callable<String> action = () -> "ok";
        assertThat(RetryLayers.watch("loop", action, 2)).isSameAs(action);
        Bridge.install(owning(true));
        assertThat(RetryLayers.watch("loop", action, 0)).isSameAs(action);
        assertThat(RetryLayers.watch("loop", action, 2)).isNotSameAs(action);
    }
}
