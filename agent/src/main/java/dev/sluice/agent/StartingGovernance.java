package dev.sluice.agent;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.HttpTransport;
import java.util.concurrent.CompletableFuture;

/**
 * What the bridge holds between {@code premain} and the moment the governor is built: the hooks
 * are installed at once, the configuration and the governor are built on the {@code sluice-start}
 * thread (off the host's start-up path), and a hooked call that arrives meanwhile waits here for
 * the real governance, so the first governed call is governed like any other.
 *
 * <p>The wait is bounded ({@code -Ddev.sluice.agent.startWaitMillis}, {@value #DEFAULT_WAIT_MILLIS} ms
 * by default): past it the call fails open (passes ungoverned), is counted as a hook fault and
 * logged once; later calls do not wait again but pass until the governor is ready. The thread
 * that builds the governor never waits (a Redis store opens its connections while it is built).
 */
final class StartingGovernance implements Governance {

    static final String WAIT_PROPERTY = "dev.sluice.agent.startWaitMillis";
    static final long DEFAULT_WAIT_MILLIS = 5_000;

    private final long waitMillis;
    private volatile Thread builder;
    /** The governance built, or {@link Governance#PASS_THROUGH} when none could be; null until then. */
    private volatile Governance target;
    /** Set once a call waited the whole bound: later calls pass at once until the governor is ready. */
    private volatile boolean gaveUp;

    StartingGovernance(long waitMillis) {
        this.waitMillis = waitMillis;
    }

    static long configuredWaitMillis() {
        Long configured = Long.getLong(WAIT_PROPERTY);
        return configured == null || configured < 0 ? DEFAULT_WAIT_MILLIS : configured;
    }

    /** The thread that builds the governor: it must never wait for itself. */
    void builtBy(Thread thread) {
        builder = thread;
    }

    /** The governor is ready (or will never be: {@link Governance#PASS_THROUGH}); wakes every waiting call. */
    synchronized void ready(Governance governance) {
        target = governance == null ? Governance.PASS_THROUGH : governance;
        notifyAll();
    }

    boolean isReady() {
        return target != null;
    }

    /** The real governance, waiting for it if needed; null when the call must pass ungoverned. */
    private Governance await() {
        Governance ready = target;
        if (ready != null) {
            return ready;
        }
        if (gaveUp || Thread.currentThread() == builder) {
            return null;
        }
        long began = System.nanoTime();
        synchronized (this) {
            long deadline = began + waitMillis * 1_000_000L;
            while ((ready = target) == null) {
                long leftMillis = (deadline - System.nanoTime()) / 1_000_000L;
                if (leftMillis <= 0 || gaveUp) {
                    break;
                }
                try {
                    wait(leftMillis);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt(); // the caller's call sees its interrupt, ungoverned
                    return null;
                }
            }
        }
        if (ready == null) {
            failOpen(); // outside the monitor: logging may initialise SLF4J
        } else if (AgentLog.isDebug()) {
            AgentLog.get()
                    .debug(
                            "a call on {} waited {} us for the governor",
                            Thread.currentThread().getName(),
                            (System.nanoTime() - began) / 1000);
        }
        return ready;
    }

    private void failOpen() {
        boolean first = !gaveUp;
        gaveUp = true;
        Bridge.hookFault("start", new IllegalStateException("governor not ready " + waitMillis + " ms after start"));
        if (first) {
            AgentLog.get()
                    .warn(
                            "the governor was not ready {} ms after start; calls pass ungoverned until it is ({})",
                            waitMillis,
                            WAIT_PROPERTY);
        }
    }

    @Override
    public boolean governs(String url) {
        Governance ready = await();
        return ready != null && ready.governs(url);
    }

    @Override
    public CallOutcome execute(HttpTransport transport) {
        return readyOrFail().execute(transport);
    }

    @Override
    public CompletableFuture<Object> executeAsync(HttpTransport transport) {
        return readyOrFail().executeAsync(transport);
    }

    /** Only asked once {@link #governs} said yes, which it does only once the governor is ready. */
    private Governance readyOrFail() {
        Governance ready = target;
        if (ready == null) {
            throw new IllegalStateException("the governor is not started yet");
        }
        return ready;
    }

    @Override
    public void onHookFault(String where, Throwable fault) {
        Governance ready = target;
        if (ready != null) {
            ready.onHookFault(where, fault);
        }
    }

    @Override
    public boolean ownsRetries() {
        Governance ready = await();
        return ready != null && ready.ownsRetries();
    }

    @Override
    public boolean recognisesEndpoint(String host, int port) {
        Governance ready = await();
        return ready != null && ready.recognisesEndpoint(host, port);
    }

    @Override
    public void onUngovernedConnection(String host, String client) {
        Governance ready = target;
        if (ready != null) {
            ready.onUngovernedConnection(host, client);
        }
    }
}
