package dev.sluice.bootstrap;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The single door between advice, wherever it is inlined, and the governor.
 *
 * <p>This class and its siblings are appended to the bootstrap class path, so advice inlined into
 * classes of any class loader (even {@code java.net.http}, defined by the platform loader) can
 * reach them. Their signatures use JDK types only. At start the agent installs the governor's
 * {@link Governance} here; until then, and whenever Sluice is off, every exchange passes untouched.
 */
public final class Bridge {

    private static volatile Governance governance = Governance.PASS_THROUGH;

    /**
     * Depth of Sluice's own dispatching on this thread. While positive, hooks let exchanges
     * through untouched: they are attempts Sluice itself is sending. Holds only an int[], never an
     * agent type, so it cannot pin the agent's class loader.
     */
    private static final ThreadLocal<int[]> DISPATCH_DEPTH = new ThreadLocal<int[]>() {
        @Override
        protected int[] initialValue() {
            return new int[1]; // an anonymous class, not a lambda: no lambda bootstrap during the host's start-up
        }
    };

    private static final AtomicLong HOOK_FAULTS = new AtomicLong();

    private Bridge() {}

    /** Plugs the governor in. Called once by the agent at start (and by tests). */
    public static synchronized void install(Governance installed) {
        governance = installed == null ? Governance.PASS_THROUGH : installed;
    }

    /**
     * Plugs {@code installed} in only if {@code expected} is still there: the agent builds its
     * governor after {@code premain}, and must not replace a governance installed meanwhile (by a
     * test, or a probe). Returns whether it did.
     */
    public static synchronized boolean replace(Governance expected, Governance installed) {
        if (governance != expected) {
            return false;
        }
        governance = installed == null ? Governance.PASS_THROUGH : installed;
        return true;
    }

    /** The governor behind the bridge; {@link Governance#PASS_THROUGH} when none is installed. */
    public static Governance governance() {
        return governance;
    }

    /** True while Sluice itself is sending an attempt on this thread: hooks must pass it through. */
    public static boolean isDispatching() {
        return DISPATCH_DEPTH.get()[0] > 0;
    }

    /** Marks the start of one of Sluice's own attempts on this thread; pair with {@link #endDispatch()}. */
    public static void beginDispatch() {
        DISPATCH_DEPTH.get()[0]++;
    }

    /** Marks the end of one of Sluice's own attempts on this thread. */
    public static void endDispatch() {
        int[] depth = DISPATCH_DEPTH.get();
        if (depth[0] > 0) {
            depth[0]--;
        }
    }

    /**
     * Records a fault inside a hook. Hooks never throw into the application; they count what went
     * wrong and let the call through. The governance decides how to log it.
     */
    public static void hookFault(String where, Throwable fault) {
        HOOK_FAULTS.incrementAndGet();
        try {
            governance.onHookFault(where, fault);
        } catch (Throwable ignored) {
            // a fault while reporting a fault is dropped: the host must never see it
        }
    }

    /** How many faults hooks have reported since start. */
    public static long hookFaults() {
        return HOOK_FAULTS.get();
    }
}
