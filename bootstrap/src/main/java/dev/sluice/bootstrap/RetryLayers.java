package dev.sluice.bootstrap;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The retry layers stacked around Sluice's own retry loop (SDK loops, interceptors, an HTTP
 * client's connection retries), what neutralises them, and what each would have done.
 *
 * <p>Sluice owns the only retry loop while its governance {@linkplain Governance#ownsRetries()
 * owns retries} (mode {@code enforce}); a layer's advice then asks here whether to stand aside.
 * Three signals tell a layer that Sluice already decided a call:
 * <ul>
 *   <li>a response Sluice hands back carries {@code x-should-retry: false} (read by the SDKs);
 *   <li>a failure Sluice ended a governed call with is {@linkplain #decided(Throwable) registered},
 *       so a layer above can recognise it (or its wrapper) and not retry it;
 *   <li>a synchronous governed call {@linkplain #governedOnThisThread() counts on its thread},
 *       so a retry loop that sees only an exception it built itself can tell that the attempt it
 *       just made went through Sluice ({@link #watch(String, Callable, int)}).
 * </ul>
 *
 * <p>Counters per layer: {@code passed} (calls or attempts that went through the layer with its
 * retries off) and {@code declined} (retry decisions the layer would have taken, declined because
 * Sluice had made its own). JDK types only; never throws into a caller.
 */
public final class RetryLayers {

    private static final int PASSED = 0;
    private static final int DECLINED = 1;

    private static final Map<String, AtomicLongArray> COUNTERS = new ConcurrentHashMap<String, AtomicLongArray>();

    /** Failures Sluice ended governed calls with, weakly (identity: Throwable does not override equals). */
    private static final Map<Throwable, Boolean> DECIDED =
            Collections.synchronizedMap(new WeakHashMap<Throwable, Boolean>());

    /** Governed calls run synchronously on this thread, and the failure a watched attempt left for its loop. */
    private static final ThreadLocal<Object[]> THREAD = new ThreadLocal<Object[]>() {
        @Override
        protected Object[] initialValue() {
            return new Object[] {new long[1], null};
        }
    };

    private static final int CAUSE_DEPTH = 8;

    private RetryLayers() {}

    /** Whether Sluice owns retries now: every other layer must stand aside for governed calls. */
    public static boolean ownsRetries() {
        Governance g = Bridge.governance();
        if (g == Governance.PASS_THROUGH) {
            return false;
        }
        try {
            return g.ownsRetries();
        } catch (Throwable fault) {
            Bridge.hookFault("retry-layers:ownsRetries", fault); // counted: the layers keep their own retries
            return false;
        }
    }

    /** A call or attempt went through {@code layer} with the layer's retries off. */
    public static void passed(String layer) {
        counters(layer).incrementAndGet(PASSED);
    }

    /** {@code layer} would have retried, and did not because Sluice had decided. */
    public static void declined(String layer) {
        counters(layer).incrementAndGet(DECLINED);
    }

    /**
     * An SDK built on the Stainless retry rule (openai-java, anthropic-java) decided not to retry
     * an answer of this status: counted as declined when its rule (408, 409, 429, 5xx) would have
     * retried it and Sluice owns retries, so it was Sluice's {@code x-should-retry: false} that
     * stopped it.
     */
    public static void declinedStatusRetry(String layer, int status) {
        if ((status == 408 || status == 409 || status == 429 || status >= 500) && ownsRetries()) {
            declined(layer);
        }
    }

    private static AtomicLongArray counters(String layer) {
        AtomicLongArray c = COUNTERS.get(layer);
        if (c == null) {
            AtomicLongArray fresh = new AtomicLongArray(2);
            c = COUNTERS.putIfAbsent(layer, fresh);
            if (c == null) {
                c = fresh;
            }
        }
        return c;
    }

    /**
     * What every layer seen so far did: layer name to {@code {"passed": n, "declined": n}}, sorted
     * by layer. A snapshot; later counts do not change it.
     */
    public static Map<String, Map<String, Long>> snapshot() {
        Map<String, Map<String, Long>> out = new TreeMap<String, Map<String, Long>>();
        for (Map.Entry<String, AtomicLongArray> e : COUNTERS.entrySet()) {
            Map<String, Long> one = new TreeMap<String, Long>();
            one.put("passed", e.getValue().get(PASSED));
            one.put("declined", e.getValue().get(DECLINED));
            out.put(e.getKey(), Collections.unmodifiableMap(one));
        }
        return Collections.unmodifiableMap(out);
    }

    /** Sluice ended a governed call with this failure, after its own retry decision. */
    public static void decided(Throwable failure) {
        if (failure != null) {
            DECIDED.put(failure, Boolean.TRUE);
        }
    }

    /**
     * Whether this failure, or one of its causes (an SDK wraps the HTTP client's IOException),
     * ended a call Sluice governed: no other layer may retry it.
     */
    public static boolean decidedBySluice(Throwable failure) {
        Throwable t = failure;
        for (int i = 0; t != null && i < CAUSE_DEPTH; i++) {
            if (DECIDED.containsKey(t)) {
                return true;
            }
            t = t.getCause();
        }
        return false;
    }

    /**
     * Whether a layer's retry of this failure must be declined (and counts it if so): Sluice owns
     * retries and the failure ended a governed call.
     */
    public static boolean declineRetryOf(String layer, Throwable failure) {
        if (ownsRetries() && decidedBySluice(failure)) {
            declined(layer);
            return true;
        }
        return false;
    }

    /** A governed call runs synchronously on this thread, with Sluice deciding its retries. */
    public static void governedOnThisThread() {
        ((long[]) THREAD.get()[0])[0]++;
    }

    /** How many governed calls ran on this thread (a sequence: compare two readings). */
    public static long governedCountOnThisThread() {
        return ((long[]) THREAD.get()[0])[0];
    }

    /**
     * Wraps one attempt of a synchronous retry loop (one that only sees exceptions it builds
     * itself): when the attempt fails after a governed call ran inside it, the failure is kept for
     * {@link #takeDeclinedFailure(String)}, which the loop's backoff consults before it waits.
     * Returns {@code action} itself when Sluice does not own retries or the loop would not retry.
     */
    public static <T> Callable<T> watch(String layer, Callable<T> action, int maxRetries) {
        if (action == null || maxRetries <= 0 || action instanceof Watched || !ownsRetries()) {
            return action;
        }
        return new Watched<T>(action);
    }

    /**
     * The failure the loop must end with instead of waiting for another attempt (and counts the
     * declined retry), or null: the last watched attempt on this thread did not go through Sluice.
     */
    public static Exception takeDeclinedFailure(String layer) {
        Object[] state = THREAD.get();
        Exception failure = (Exception) state[1];
        state[1] = null;
        if (failure != null) {
            declined(layer);
        }
        return failure;
    }

    /** Forgets a failure a watched loop left behind (it ended some other way). */
    public static void endWatch() {
        THREAD.get()[1] = null;
    }

    private static final class Watched<T> implements Callable<T> {
        private final Callable<T> action;

        Watched(Callable<T> action) {
            this.action = action;
        }

        @Override
        public T call() throws Exception {
            Object[] state = THREAD.get();
            state[1] = null;
            long before = ((long[]) state[0])[0];
            try {
                return action.call();
            } catch (RuntimeException failure) {
                if (((long[]) state[0])[0] != before) {
                    state[1] = failure;
                }
                throw failure;
            }
        }
    }
}
