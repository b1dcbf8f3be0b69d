package dev.sluice.simulator.profile.anthropic;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Anthropic's prompt cache as far as accounting goes: a prefix marked with {@code cache_control}
 * is written by the first admitted request (cache creation tokens) and read by later ones (cache
 * read tokens) while it stays warm (5 minutes, refreshed on each use). Prefixes shorter than the
 * minimum are never cached, as on the real API. A refused request writes nothing.
 */
final class PromptCache {
    static final int MIN_CACHEABLE_TOKENS = 1024;
    private static final Duration TTL = Duration.ofMinutes(5);

    private final Clock clock;
    private final Map<String, Instant> warmUntil = new ConcurrentHashMap<>();

    PromptCache(Clock clock) {
        this.clock = clock;
    }

    /** The cache entry name of a prefix sent with a key. */
    static String entry(String apiKey, String prefix) {
        return apiKey + "\u0000" + prefix.length() + "\u0000" + prefix.hashCode();
    }

    boolean isWarm(String entry) {
        Instant until = warmUntil.get(entry);
        return until != null && until.isAfter(clock.instant());
    }

    /** Writes or refreshes an entry (on admission). */
    void touch(String entry) {
        Instant now = clock.instant();
        if (warmUntil.size() > 10_000) {
            evictExpired(now);
        }
        warmUntil.put(entry, now.plus(TTL));
    }

    void clear() {
        warmUntil.clear();
    }

    private void evictExpired(Instant now) {
        for (Iterator<Instant> it = warmUntil.values().iterator(); it.hasNext(); ) {
            if (!it.next().isAfter(now)) {
                it.remove();
            }
        }
    }
}
