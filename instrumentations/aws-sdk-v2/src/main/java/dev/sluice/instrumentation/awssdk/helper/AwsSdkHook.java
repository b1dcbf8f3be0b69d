package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hook;

/**
 * The hook of every type the AWS SDK instrumentation hooks, defined next to each copy of the SDK:
 * the HTTP clients' entries ({@link SyncCalls}, {@link AsyncCalls}) and the retry stage's
 * decisions ({@link RetryStage}). Each site's code is in a class of its own, reached only from its
 * site: next to the retry stage nothing of the HTTP clients' is ever loaded.
 */
public final class AwsSdkHook implements Hook {

    /** {@code SdkHttpClient.prepareRequest(HttpExecuteRequest)}. */
    static final int PREPARE = 1;
    /** {@code SdkAsyncHttpClient.execute(AsyncExecuteRequest)}. */
    static final int EXECUTE = 2;

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        switch (site) {
            case PREPARE:
                return SyncCalls.enter(self, args);
            case EXECUTE:
                return AsyncCalls.enter(self, args);
            default:
                return RetryStage.enter(site, args);
        }
    }
}
