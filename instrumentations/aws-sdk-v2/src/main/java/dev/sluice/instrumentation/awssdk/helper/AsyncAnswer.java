package dev.sluice.instrumentation.awssdk.helper;

import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * One answer of an asynchronous governed call as the governor handles it: an attempt's head with
 * its buffered body (non-2xx, or a local answer built by Sluice), or an attempt's 2xx head whose
 * body streams through a {@link TappedPublisher} ({@code attempt} then names it).
 */
final class AsyncAnswer {

    final SdkHttpResponse head;
    /** The buffered body; null for a 2xx that streams. */
    final byte[] body;
    /** The 2xx attempt whose body streams, null otherwise. */
    final AttemptHandler attempt;
    /** That attempt's body as the SDK will subscribe to it, null otherwise. */
    final TappedPublisher stream;

    AsyncAnswer(SdkHttpResponse head, byte[] body) {
        this(head, body, null, null);
    }

    AsyncAnswer(SdkHttpResponse head, AttemptHandler attempt, TappedPublisher stream) {
        this(head, null, attempt, stream);
    }

    private AsyncAnswer(SdkHttpResponse head, byte[] body, AttemptHandler attempt, TappedPublisher stream) {
        this.head = head;
        this.body = body;
        this.attempt = attempt;
        this.stream = stream;
    }

    AsyncAnswer withHead(SdkHttpResponse newHead) {
        return new AsyncAnswer(newHead, body, attempt, stream);
    }
}
