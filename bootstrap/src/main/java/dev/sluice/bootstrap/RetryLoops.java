package dev.sluice.bootstrap;

/**
 * Retry loops that run on one thread and can be hooked at three points: the loop starts and ends,
 * an attempt failed, the loop asks whether it may go round again (spring-retry's
 * {@code RetryTemplate}). A loop stands aside for an attempt Sluice decided: one that ended with a
 * failure Sluice {@linkplain RetryLayers#decided(Throwable) registered} (or wrapping one), or
 * during which a governed call started on this thread (the loop's exception was built from the
 * answer Sluice handed back). Attempts that did not go through Sluice retry as the loop says.
 *
 * <p>Loops nest (a template inside a template's callback), so their state is a per-thread stack:
 * the innermost loop's hooks always act on the top frame. JDK types only; never throws.
 */
public final class RetryLoops {

    /** Frame fields: governed count at the loop's start, at the current attempt's start, declined flag. */
    private static final int LOOP_START = 0;

    private static final int ATTEMPT_START = 1;
    private static final int DECLINED = 2;
    private static final int FRAME = 3;

    /** Deeper nesting than this is not tracked (the loop keeps its own retries): a runaway guard. */
    private static final int MAX_DEPTH = 16;

    private static final ThreadLocal<Stack> STACK = new ThreadLocal<Stack>() {
        @Override
        protected Stack initialValue() {
            return new Stack();
        }
    };

    private static final class Stack {
        final long[] frames = new long[MAX_DEPTH * FRAME];
        int depth;
        /** Frames pushed beyond MAX_DEPTH, so exits stay paired. */
        int overflow;
    }

    private RetryLoops() {}

    /** A loop starts on this thread. Pair with {@link #exit(String)}. */
    public static void enter() {
        Stack s = STACK.get();
        if (s.depth == MAX_DEPTH) {
            s.overflow++;
            return;
        }
        long now = RetryLayers.governedCountOnThisThread();
        int at = s.depth * FRAME;
        s.frames[at + LOOP_START] = now;
        s.frames[at + ATTEMPT_START] = now;
        s.frames[at + DECLINED] = 0;
        s.depth++;
    }

    /**
     * The loop on top of this thread's stack ends; counted as {@code passed} for {@code layer} when
     * a governed call ran inside it while Sluice owned retries.
     */
    public static void exit(String layer) {
        Stack s = STACK.get();
        if (s.overflow > 0) {
            s.overflow--;
            return;
        }
        if (s.depth == 0) {
            return;
        }
        s.depth--;
        int at = s.depth * FRAME;
        if (RetryLayers.governedCountOnThisThread() != s.frames[at + LOOP_START]) {
            RetryLayers.passed(layer); // the count only moves while Sluice owns retries
        }
        if (s.depth == 0) {
            STACK.remove(); // nothing of a finished loop stays on a pooled thread
        }
    }

    /**
     * An attempt of the top loop failed with {@code failure}: if Sluice decided that attempt (and
     * owns retries), the loop may not retry it, and the decline is counted once for {@code layer}.
     * Otherwise the next attempt is measured from now.
     */
    public static void attemptFailed(String layer, Throwable failure) {
        Stack s = STACK.get();
        if (s.depth == 0 || s.overflow > 0) {
            return;
        }
        int at = (s.depth - 1) * FRAME;
        long now = RetryLayers.governedCountOnThisThread();
        boolean governed = now != s.frames[at + ATTEMPT_START] || RetryLayers.decidedBySluice(failure);
        s.frames[at + ATTEMPT_START] = now;
        if (governed && s.frames[at + DECLINED] == 0 && RetryLayers.ownsRetries()) {
            s.frames[at + DECLINED] = 1;
            RetryLayers.declined(layer);
        }
    }

    /** What the top loop's own "may I retry?" becomes: false once Sluice decided its last attempt. */
    public static boolean mayRetry(boolean loopSays) {
        if (!loopSays) {
            return false;
        }
        Stack s = STACK.get();
        if (s.depth == 0 || s.overflow > 0) {
            return true;
        }
        return s.frames[(s.depth - 1) * FRAME + DECLINED] == 0;
    }
}
