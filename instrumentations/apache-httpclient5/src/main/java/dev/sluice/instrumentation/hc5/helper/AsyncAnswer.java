package dev.sluice.instrumentation.hc5.helper;

import org.apache.hc.core5.http.HttpResponse;

/**
 * One answer of an asynchronous governed call as the governor handles it: an attempt's response
 * head with its buffered body (non-2xx), an attempt's 2xx head whose body streams through a
 * {@link AttemptConsumer} ({@code relay}), or a local answer built by Sluice.
 */
final class AsyncAnswer {

    final HttpResponse head;
    /** The buffered body (error or local answer); null for a 2xx that streams. */
    final byte[] body;
    /** The 2xx attempt's consumer, null otherwise. */
    final AttemptConsumer relay;

    AsyncAnswer(HttpResponse head, byte[] body, AttemptConsumer relay) {
        this.head = head;
        this.body = body;
        this.relay = relay;
    }
}
