package dev.sluice.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A retry loop driven the way spring-retry's RetryTemplate drives its hooks. */
class RetryLoopsTest {

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
    }

    /** The template's loop: attempts until one succeeds or canRetry says no; returns the attempts made. */
    private static int loop(String layer, int maxAttempts, boolean[] governedAttempts) {
        RetryLoops.enter();
        int attempts = 0;
        try {
            while (RetryLoops.mayRetry(attempts < maxAttempts)) {
                boolean governed = governedAttempts[Math.min(attempts, governedAttempts.length - 1)];
                attempts++;
                if (governed) {
                    RetryLayers.governedOnThisThread(); // what Sluice does when it takes a call
                }
                RetryLoops.attemptFailed(layer, new IllegalStateException("attempt " + attempts));
                if (!RetryLoops.mayRetry(attempts < maxAttempts)) {
                    break;
                }
            }
            return attempts;
        } finally {
            RetryLoops.exit(layer);
        }
    }

    private static Map<String, Long> counts(String layer) {
        return RetryLayers.snapshot().getOrDefault(layer, Map.of());
    }

    @Test
    void aLoopMakesOnePassForAnAttemptSluiceGoverned() {
        Bridge.install(owning(true));
        assertThat(loop("loops-governed", 10, new boolean[] {true})).isEqualTo(1);
        assertThat(counts("loops-governed")).containsEntry("declined", 1L).containsEntry("passed", 1L);
    }

    @Test
    void aLoopKeepsItsRetriesForAttemptsSluiceDidNotGovern() {
        Bridge.install(owning(true));
        assertThat(loop("loops-ungoverned", 4, new boolean[] {false})).isEqualTo(4);
        assertThat(counts("loops-ungoverned")).isEmpty();
    }

    @Test
    void aLoopStopsAtTheFirstGovernedAttemptAfterUngovernedOnes() {
        Bridge.install(owning(true));
        assertThat(loop("loops-mixed", 10, new boolean[] {false, false, true})).isEqualTo(3);
        assertThat(counts("loops-mixed")).containsEntry("declined", 1L);
    }

    @Test
    void aFailureSluiceRegisteredIsNotRetriedEvenWithoutAThreadCount() {
        Bridge.install(owning(true));
        IOException decided = new IOException("connection refused, after Sluice's own retries");
        RetryLayers.decided(decided);
        RetryLoops.enter();
        try {
            assertThat(RetryLoops.mayRetry(true)).isTrue();
            RetryLoops.attemptFailed("loops-decided", new RuntimeException("wrapped", decided));
            assertThat(RetryLoops.mayRetry(true)).isFalse();
        } finally {
            RetryLoops.exit("loops-decided");
        }
        assertThat(counts("loops-decided")).containsEntry("declined", 1L);
    }

    @Test
    void inObserveModeTheLoopKeepsItsRetries() {
        Bridge.install(owning(false));
        IOException decided = new IOException("refused");
        RetryLayers.decided(decided);
        RetryLoops.enter();
        try {
            RetryLoops.attemptFailed("loops-observe", decided);
            assertThat(RetryLoops.mayRetry(true)).isTrue();
        } finally {
            RetryLoops.exit("loops-observe");
        }
    }

    @Test
    void nestedLoopsDecideForThemselves() {
        Bridge.install(owning(true));
        RetryLoops.enter(); // outer
        try {
            assertThat(loop("loops-inner", 5, new boolean[] {true})).isEqualTo(1);
            // the outer loop's attempt contained the governed call too
            RetryLoops.attemptFailed("loops-outer", new IllegalStateException("outer"));
            assertThat(RetryLoops.mayRetry(true)).isFalse();
        } finally {
            RetryLoops.exit("loops-outer");
        }
        assertThat(RetryLoops.mayRetry(true)).as("no loop left on the thread").isTrue();
    }
}
