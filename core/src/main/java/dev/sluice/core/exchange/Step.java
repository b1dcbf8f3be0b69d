package dev.sluice.core.exchange;

import java.util.Map;

/** What a logical call does next after an attempt: answer the caller, or try again after a wait. */
final class Step {

    enum Kind {
        RESPOND,
        FAIL,
        RETRY
    }

    final Kind kind;
    /** RESPOND: the library response to return. */
    final Object response;
    /** FAIL: what the caller must see thrown. */
    final Throwable failure;
    /** RETRY: how long to wait first (0 when the provider scope's pause does the waiting). */
    final long waitNanos;

    private Step(Kind kind, Object response, Throwable failure, long waitNanos) {
        this.kind = kind;
        this.response = response;
        this.failure = failure;
        this.waitNanos = waitNanos;
    }

    static Step respond(Object response) {
        return new Step(Kind.RESPOND, response, null, 0);
    }

    static Step fail(Throwable failure) {
        return new Step(Kind.FAIL, null, failure, 0);
    }

    static Step retry(long waitNanos) {
        return new Step(Kind.RETRY, null, null, waitNanos);
    }

    static final Map<String, String> NO_HEADERS = Map.of();
}
