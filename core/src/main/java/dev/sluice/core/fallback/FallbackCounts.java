package dev.sluice.core.fallback;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many calls moved, by the route they moved to and why, and how many calls each route served.
 * Thread-safe; a handful of keys (routes times reasons), so a map of adders.
 */
public final class FallbackCounts {

    private final Map<String, LongAdder> moves = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> served = new ConcurrentHashMap<>();

    /** A call left route {@code from} for {@code to}. */
    public void moved(String from, String to, FallbackReason reason) {
        adder(moves, from + " -> " + to + " (" + reason.wireName() + ")").increment();
    }

    /** A call that could move ended with an answer from this route. */
    public void served(String route) {
        adder(served, route).increment();
    }

    /** Not computeIfAbsent with a lambda: a first call would spin its class (docs/design.md). */
    private static LongAdder adder(Map<String, LongAdder> map, String key) {
        LongAdder a = map.get(key);
        if (a == null) {
            LongAdder fresh = new LongAdder();
            a = map.putIfAbsent(key, fresh);
            if (a == null) {
                a = fresh;
            }
        }
        return a;
    }

    /** Moves by {@code "from -> to (reason)"}, sorted. */
    public Map<String, Long> moves() {
        return snapshot(moves);
    }

    /** Answers by the route that gave them, for calls of classes with fallback routes. */
    public Map<String, Long> served() {
        return snapshot(served);
    }

    /** Every move since start. */
    public long total() {
        long sum = 0;
        for (LongAdder a : moves.values()) {
            sum += a.sum();
        }
        return sum;
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> map) {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, LongAdder> e : map.entrySet()) {
            out.put(e.getKey(), e.getValue().sum());
        }
        return out;
    }
}
