package dev.sluice.instrumentation.awssdk.helper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.instrumentation.testing.RecordingObserver;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;

/** What a {@link TappedPublisher} settles when the client's own publisher misbehaves. */
class TappedPublisherTest {

    /**
     * A body dropped unsubscribed is cancelled at the client before its observer hears the close; a
     * client publisher that throws on that subscribe (a second subscriber refused, a closed channel)
     * must not keep the permit until its lease expires.
     */
    @Test
    void aDroppedBodyWhoseClientRefusesTheCancellingSubscriberIsStillReleased() throws Exception {
        RecordingObserver observer = new RecordingObserver();
        drop(observer);
        long deadline = System.currentTimeMillis() + 10_000;
        while (!observer.settled() && System.currentTimeMillis() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(observer.closes())
                .as("the dropped body's observer hears its close")
                .isEqualTo(1);
    }

    /** Its own frame: once it returns nothing of the body is on the test's stack. */
    private static void drop(RecordingObserver observer) {
        new TappedPublisher(new Refusing(), observer);
    }

    private static final class Refusing implements Publisher<ByteBuffer> {
        @Override
        public void subscribe(Subscriber<? super ByteBuffer> subscriber) {
            throw new IllegalStateException("this body has a subscriber already");
        }
    }
}
