package dev.sluice.bootstrap;

import java.util.concurrent.CompletableFuture;

/**
 * What hooks ask of the governor. Implemented behind the bridge by the agent; hooks only see
 * this interface and {@link HttpTransport}.
 */
public interface Governance {

    /** Lets everything through: the state before the agent starts, and mode {@code off}. */
    Governance PASS_THROUGH = new Governance() {
        @Override
        public boolean governs(String url) {
            return false;
        }

        @Override
        public CallOutcome execute(HttpTransport transport) {
            throw new IllegalStateException("pass-through governance governs nothing");
        }

        @Override
        public CompletableFuture<Object> executeAsync(HttpTransport transport) {
            throw new IllegalStateException("pass-through governance governs nothing");
        }
    };

    /**
     * Whether an exchange to this absolute URL is an LLM call Sluice governs. Cheap (a host
     * lookup); called by hooks before they build anything. {@code false}: the exchange must pass
     * untouched.
     */
    boolean governs(String url);

    /**
     * Runs one logical call on the caller's thread: admission (waiting if needed), attempts,
     * retries and settlement. Never throws: a failure the caller must see comes back inside the
     * outcome; a fault inside Sluice lets the call through.
     */
    CallOutcome execute(HttpTransport transport);

    /**
     * Runs one logical call without blocking the calling thread. The future completes with the
     * library's response object (or exceptionally with what the caller must see); completion that
     * originates on Sluice's own threads is handed to {@link HttpTransport#callbackExecutor()}.
     */
    CompletableFuture<Object> executeAsync(HttpTransport transport);

    /** A hook failed; count it and log it (rate limited). Must not throw. */
    default void onHookFault(String where, Throwable fault) {}

    /**
     * Whether Sluice's retry loop is the only one now (mode {@code enforce}): the retry layers of
     * SDKs and HTTP clients stand aside for governed calls (see {@link RetryLayers}). False by
     * default, and in mode {@code observe}, where the application's own retries stay as they are.
     */
    default boolean ownsRetries() {
        return false;
    }

    /**
     * Whether a connection to this host and port reaches a provider Sluice recognises (its public
     * host, or a host or base URL config names), whatever the path; {@code port}
     * {@link Connections#ANY_PORT} asks whether it does on some port. Cheap; called for new TCP
     * connections of the JVM (the answer is cached per host and per endpoint). False by default.
     */
    default boolean recognisesEndpoint(String host, int port) {
        return false;
    }

    /**
     * The first connection to a provider's host through a client Sluice does not govern (once per
     * host and client): log it so the operator knows these calls bypass the governor. Must not throw.
     */
    default void onUngovernedConnection(String host, String client) {}
}
