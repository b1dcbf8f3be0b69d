package dev.sluice.core;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Where every Caffeine cache of Sluice starts. Its maintenance (evictions, removal listeners) runs
 * on the thread that touched the cache, never on {@code ForkJoinPool.commonPool()}, Caffeine's
 * default: the agent must neither run work on the application's pool nor be the one that creates
 * it, which fixes its size and thread factory for the JVM before the application's {@code main}
 * could set them ({@code java.util.concurrent.ForkJoinPool.common.*}).
 *
 * <p>So the thread that pays is the caller's: a cache looked up on every call must not record its
 * reads. One bounded by size alone records none while under half full; one that expires after
 * access records every read and runs its whole upkeep on one call in sixteen (the retry budgets
 * did: 7 % of Sluice's work on an openai-java call, in spikes). Expire after write, or by size.
 */
public final class Caches {

    private Caches() {}

    /** Runs maintenance on the calling thread. Not {@code Runnable::run}: see {@link #ticker}. */
    private static final Executor CALLING_THREAD = new Executor() {
        @Override
        public void execute(Runnable task) {
            task.run();
        }
    };

    public static Caffeine<Object, Object> builder() {
        return Caffeine.newBuilder().executor(CALLING_THREAD);
    }

    /**
     * The clock's monotonic time as Caffeine reads it. Not {@code clock::nanoTime}: the agent
     * builds its caches as the application starts, and the JVM spins a class for each method
     * reference then (docs/startup-figures.md).
     */
    public static Ticker ticker(Clock clock) {
        return new Ticker() {
            @Override
            public long read() {
                return clock.nanoTime();
            }
        };
    }

    /** {@link #ticker(Clock)} for a monotonic time read as a {@code LongSupplier}. */
    public static Ticker ticker(LongSupplier nanoTime) {
        return new Ticker() {
            @Override
            public long read() {
                return nanoTime.getAsLong();
            }
        };
    }
}
