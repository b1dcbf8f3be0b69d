package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.RetryLayers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.utils.Either;

/**
 * The AWS SDK's own retry layer standing aside for the calls Sluice governs. Every retry decision
 * of the SDK (sync and async, whatever the strategy: standard with its retry quota, adaptive with
 * its client-side rate limiter, legacy, or an old {@code RetryPolicy}) goes through
 * {@code RetryableStageHelper}, in two places:
 *
 * <ul>
 *   <li>{@code acquireInitialToken()} / {@code acquireInitialTokenAsync()}: the delay before the
 *       first attempt, which the adaptive mode's limiter sets once it has seen throttling. For a
 *       request Sluice governs the delay is zero: Sluice paces it (the token is still taken, so
 *       the strategy's bookkeeping stays whole).
 *   <li>{@code tryRefreshToken(Duration)} / {@code tryRefreshTokenAsync(Duration)}: whether to
 *       retry a failed attempt. When the failure is one Sluice decided (an answer it handed back
 *       carries {@code x-should-retry: false}; a failure it ended the call with is registered),
 *       the answer is "no retry, no wait" without asking the strategy: no second attempt, no retry
 *       quota spent, no throttling fed to the adaptive limiter. Any other failure (a checksum
 *       mismatch after a success, a request Sluice does not govern) is the strategy's to judge.
 * </ul>
 *
 * Only while Sluice owns retries (mode {@code enforce}). Counted under {@value #LAYER}: a governed
 * call is {@code passed}; a refused retry the SDK's rules would have made (429, 5xx, an I/O
 * failure) is {@code declined}.
 */
final class RetryStage {

    static final String LAYER = "aws-sdk-retry-strategy";

    /** {@code acquireInitialToken()}: args {@code [request]}. */
    static final int ACQUIRE = 3;
    /** {@code acquireInitialTokenAsync()} on exit: args {@code [request, the future it returned]}. */
    static final int ACQUIRE_ASYNC = 4;
    /** {@code tryRefreshToken(Duration)}: args {@code [request, lastException, lastResponse]}. */
    static final int REFRESH = 5;
    /** {@code tryRefreshTokenAsync(Duration)}: args as {@link #REFRESH}. */
    static final int REFRESH_ASYNC = 6;

    private static final Function<Duration, Duration> NO_DELAY = new Function<Duration, Duration>() {
        @Override
        public Duration apply(Duration ignored) {
            return Duration.ZERO;
        }
    };

    private RetryStage() {}

    @SuppressWarnings("unchecked")
    static CallOutcome enter(int site, Object[] args) {
        if (args == null || args.length == 0 || !(args[0] instanceof SdkHttpRequest)) {
            return null;
        }
        switch (site) {
            case ACQUIRE:
                return governed(args[0]) ? CallOutcome.response(Duration.ZERO) : null;
            case ACQUIRE_ASYNC:
                if (args.length < 2 || !(args[1] instanceof CompletableFuture) || !governed(args[0])) {
                    return null;
                }
                return CallOutcome.response(((CompletableFuture<Duration>) args[1]).thenApply(NO_DELAY));
            case REFRESH:
                return decidedBySluice(args) ? CallOutcome.response(noRetry()) : null;
            case REFRESH_ASYNC:
                return decidedBySluice(args)
                        ? CallOutcome.response(CompletableFuture.completedFuture(noRetry()))
                        : null;
            default:
                return null;
        }
    }

    /** What {@code tryRefreshToken} answers when no retry may follow and no wait is due. */
    private static Either<Duration, Duration> noRetry() {
        return Either.right(Duration.ZERO);
    }

    /** A request Sluice governs, while it owns retries: counted once per call, at its first token. */
    private static boolean governed(Object request) {
        if (!RetryLayers.ownsRetries()
                || !Bridge.governance()
                        .governs(((SdkHttpRequest) request).getUri().toString())) {
            return false;
        }
        RetryLayers.passed(LAYER);
        return true;
    }

    /** Whether the attempt's failure is one Sluice decided, while it owns retries; a declined retry is counted. */
    private static boolean decidedBySluice(Object[] args) {
        Throwable failure = args.length > 1 && args[1] instanceof Throwable ? (Throwable) args[1] : null;
        SdkHttpResponse response =
                args.length > 2 && args[2] instanceof SdkHttpResponse ? (SdkHttpResponse) args[2] : null;
        boolean handedBack = response != null
                && "false"
                        .equalsIgnoreCase(
                                response.firstMatchingHeader("x-should-retry").orElse(null));
        if (!(handedBack || RetryLayers.decidedBySluice(failure)) || !RetryLayers.ownsRetries()) {
            return false;
        }
        int status = response == null ? 0 : response.statusCode();
        if (status == 0 || status == 429 || status >= 500) {
            RetryLayers.declined(LAYER); // the SDK retries throttling, 5xx and I/O failures
        }
        return true;
    }
}
