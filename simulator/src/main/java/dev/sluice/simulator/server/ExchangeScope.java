package dev.sluice.simulator.server;

import java.util.ArrayList;
import java.util.List;

/**
 * The life of one HTTP exchange on a container thread, from the moment the filter sees the request
 * to the moment the last byte (or the reset) has gone. What was admitted registers here what to
 * give back when the exchange ends (concurrency slots, output true-up, ledger completion), so the
 * release happens on every path: normal end, truncation, reset, client gone.
 *
 * <p>A thread-local suffices because WireMock renders and writes a response on the container
 * thread that received it (asynchronous responses are disabled).
 */
final class ExchangeScope {
    private static final ThreadLocal<ExchangeScope> CURRENT = new ThreadLocal<>();

    private final List<Runnable> onClose = new ArrayList<>(2);
    private boolean truncated;

    static ExchangeScope open() {
        ExchangeScope scope = new ExchangeScope();
        CURRENT.set(scope);
        return scope;
    }

    /** The exchange of this thread, or null outside of one. */
    static ExchangeScope current() {
        return CURRENT.get();
    }

    /** Runs {@code action} when the exchange ends; at once when there is no exchange. */
    static void whenDone(Runnable action) {
        ExchangeScope scope = CURRENT.get();
        if (scope == null) {
            action.run();
        } else {
            scope.onClose.add(action);
        }
    }

    /** The body is being cut on purpose: the connection must be aborted, not completed. */
    void markTruncated() {
        truncated = true;
    }

    boolean truncated() {
        return truncated;
    }

    void close() {
        CURRENT.remove();
        for (Runnable action : onClose) {
            action.run();
        }
    }
}
