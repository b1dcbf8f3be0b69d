package dev.sluice.core;

import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Where every Caffeine cache of Sluice starts. Its maintenance (evictions, removal listeners) runs
 * on the thread that touched the cache, never on {@code ForkJoinPool.commonPool()}, Caffeine's
 * default: the agent must neither run work on the application's pool nor be the one that creates
 * it, which fixes its size and thread factory for the JVM before the application's {@code main}
 * could set them ({@code java.util.concurrent.ForkJoinPool.common.*}).
 */
public final class Caches {

    private Caches() {}

    public static Caffeine<Object, Object> builder() {
        return Caffeine.newBuilder().executor(Runnable::run);
    }
}
