package dev.sluice.core.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine that the build cannot bring: a second JDK, a
 * {@code redis-server}. Where it is missing, the test is skipped, visibly, on a developer's
 * machine; in CI (environment variable {@code CI=true}, which {@code .ci/run} sets) it fails
 * instead, so a CI machine that lacks it cannot pass by skipping what it was meant to run.
 */
public final class Prerequisites {

    private Prerequisites() {}

    /**
     * Goes on when {@code present}; otherwise skips the calling test, or fails it in CI.
     *
     * @param missing what is missing and how to get it, e.g. {@code "no JDK at /usr/lib/jvm/x"}
     */
    public static void require(boolean present, String missing) {
        require(present, missing, inCi());
    }

    static void require(boolean present, String missing, boolean inCi) {
        if (present) {
            return;
        }
        if (inCi) {
            Assertions.fail("CI=true and a prerequisite is missing (CI runs every test, never skips): " + missing);
        }
        Assumptions.abort("SKIPPED: " + missing);
    }

    /** Whether the tests run in CI: {@code CI=true}, as CI services set it. */
    public static boolean inCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }
}
