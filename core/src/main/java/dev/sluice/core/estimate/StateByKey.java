package dev.sluice.core.estimate;

import com.github.benmanes.caffeine.cache.Cache;
import dev.sluice.core.Caches;
import dev.sluice.core.LastSeen;
import java.util.function.Function;

/**
 * Learned state per key (a model's correction, a route's outputs), bounded by a Caffeine cache,
 * with the entries last used kept in front of it ({@link LastSeen}). Each governed call looked its
 * model's and its route's entries up twice, to estimate and to learn: four reads of the cache (a
 * hash, its read buffer, at times its maintenance on the caller) for the same few keys, call after
 * call. An entry found in front is not read from the cache, so the cache's view of what is used
 * lags: with more keys in use than its bound, an entry used often may be evicted there and, once
 * another key takes its slot in front, start over. Thread-safe.
 */
final class StateByKey<V> {

    private static final int FRONT_SLOTS = 64;
    private static final int LONGEST_KEY_IN_FRONT = 256;

    private final Cache<String, V> cache;
    private final Function<String, V> make;
    private final LastSeen<V> front = new LastSeen<>(FRONT_SLOTS, LONGEST_KEY_IN_FRONT);

    /** @param make the state of a key seen for the first time (not a lambda: see {@link Estimator}) */
    StateByKey(long maximumSize, Function<String, V> make) {
        this.cache = Caches.builder().maximumSize(maximumSize).build();
        this.make = make;
    }

    /** The key's state, or null when it has none yet. */
    V find(String key) {
        LastSeen.Entry<V> kept = front.find(key);
        if (kept != null) {
            return kept.value;
        }
        V state = cache.getIfPresent(key);
        if (state != null) {
            front.keep(key, state);
        }
        return state;
    }

    /** The key's state, made when it has none. */
    V findOrMake(String key) {
        LastSeen.Entry<V> kept = front.find(key);
        if (kept != null) {
            return kept.value;
        }
        V state = cache.get(key, make);
        front.keep(key, state);
        return state;
    }
}
