package dev.sluice.core.store;

import dev.sluice.core.LazyLogger;
import java.util.concurrent.locks.LockSupport;

/**
 * The store's one daemon thread, {@code sluice-store}: sleeps until there is work, then makes one
 * pass: collects under the governor's lock what to send, makes one round trip to the backend
 * without it, and applies the answer under it (after which the governor dispatches its queues).
 * Work wakes it at once when a call may soon wait (urgent), after a linger when it can travel
 * together (lazy: stock to give back, refunds, debits), when a refused reservation may be asked
 * again, and every heartbeat, which announces the instance alive. A failed or slow round trip
 * switches to the {@link Fallback}; in a fallback only heartbeats go, as probes, and the first
 * answered one switches back.
 */
final class StoreThread {

    private static final LazyLogger LOG = LazyLogger.of(QuotaStore.class);

    private final FleetBackend backend;
    private final SharedStore.Timing timing;
    private final Fallback fallback;
    private final Wants wants;

    private volatile QuotaStore.Host host;
    private volatile SyncProtocol protocol;
    private volatile Thread thread;
    private volatile boolean closed;
    private volatile String lastError;

    /** Work waits that should not: waiting calls, an empty lease. */
    private volatile boolean urgent;
    /** Work that may wait {@link SharedStore.Timing#lingerNanos}: stock to give back, refunds, debits. */
    private volatile boolean lazy;
    /** When a refused reservation may be asked again (monotonic nanos), or MAX_VALUE. */
    private volatile long nextRetryNanos = Long.MAX_VALUE;

    StoreThread(FleetBackend backend, SharedStore.Timing timing, Fallback fallback, Wants wants) {
        this.backend = backend;
        this.timing = timing;
        this.fallback = fallback;
        this.wants = wants;
    }

    /** Starts the thread, serving {@code host} with passes of {@code protocol}. */
    void start(QuotaStore.Host host, SyncProtocol protocol) {
        this.host = host;
        this.protocol = protocol;
        Thread t = new Thread(this::run, "sluice-store");
        t.setDaemon(true);
        this.thread = t;
        t.start();
    }

    /** A call may soon wait: a pass now. Lock held. */
    void wakeNow() {
        if (!urgent) {
            urgent = true;
            LockSupport.unpark(thread);
        }
    }

    /** Work that may linger so that it travels together. Lock held. */
    void wakeSoon() {
        if (!lazy) {
            lazy = true;
            LockSupport.unpark(thread);
        }
    }

    /** Called from a pass that could not send everything: another pass follows at once. */
    void moreToSend() {
        urgent = true;
    }

    /** Called from a pass: when a refused reservation may be asked again (MAX_VALUE: none waits). */
    void retryAt(long nanos) {
        nextRetryNanos = nanos;
    }

    boolean stopped() {
        return closed;
    }

    /** The last failure met talking to the backend, or null. */
    String lastError() {
        return lastError;
    }

    /** Stops the thread and waits for its pass to end (at most 2 s); false when it was stopped already. */
    boolean stop() {
        if (closed) {
            return false;
        }
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return true;
    }

    private void run() {
        long nextHeartbeat = System.nanoTime();
        long lazyDue = Long.MAX_VALUE;
        while (!closed) {
            long now = System.nanoTime();
            if (lazy && lazyDue == Long.MAX_VALUE) {
                lazyDue = now + timing.lingerNanos;
            }
            boolean heartbeat = now - nextHeartbeat >= 0;
            boolean work = !fallback.active() && (urgent || now - lazyDue >= 0 || now - nextRetryNanos >= 0);
            if (!heartbeat && !work) {
                long due = Math.min(
                        nextHeartbeat - now,
                        fallback.active()
                                ? Long.MAX_VALUE
                                : Math.min(
                                        lazyDue == Long.MAX_VALUE ? Long.MAX_VALUE : lazyDue - now,
                                        nextRetryNanos == Long.MAX_VALUE ? Long.MAX_VALUE : nextRetryNanos - now));
                LockSupport.parkNanos(this, Math.max(10_000L, due));
                continue;
            }
            urgent = false;
            lazy = false;
            lazyDue = Long.MAX_VALUE;
            if (heartbeat) {
                nextHeartbeat = now + timing.heartbeatNanos;
            }
            try {
                pass(heartbeat);
            } catch (Throwable unexpected) {
                // a bug here must not stop the thread that supplies every shared bucket
                lastError = unexpected.toString();
                LOG.get().warn("[sluice] store pass failed unexpectedly", unexpected);
                LockSupport.parkNanos(this, timing.heartbeatNanos);
            }
        }
    }

    /** One round trip: collect under the lock, talk without it, apply under it. */
    private void pass(boolean heartbeat) {
        QuotaStore.Host h = host;
        SyncProtocol.Pass p = h.withLock((n, m) -> protocol.collect(n, m, heartbeat));
        if (p == null) {
            return;
        }
        SyncReply reply;
        try {
            reply = backend.sync(p.request);
        } catch (Throwable failure) {
            if (!p.probe || !fallback.active()) {
                h.withLock((n, m) -> {
                    failed(failure, n);
                    return null;
                });
            } else {
                lastError = String.valueOf(failure);
            }
            return;
        }
        h.withLock((n, m) -> {
            protocol.apply(p, reply, n, m);
            return null;
        });
    }

    /** A round trip failed: shared buckets fall back, and no call waits for the store any more. Lock held. */
    private void failed(Throwable failure, long nowNanos) {
        lastError = String.valueOf(failure);
        if (fallback.enter(lastError, nowNanos)) {
            wants.forgetAll();
            nextRetryNanos = Long.MAX_VALUE;
        }
    }
}
