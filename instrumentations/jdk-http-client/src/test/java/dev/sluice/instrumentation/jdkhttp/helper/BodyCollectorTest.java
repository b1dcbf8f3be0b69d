package dev.sluice.instrumentation.jdkhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BodyCollectorTest {

    @Test
    void theJdkInMemoryPublishersAreRecognisedAndReadWhole() throws Exception {
        String prompt = "p".repeat(8 * 1024);
        HttpRequest.BodyPublisher ofString = HttpRequest.BodyPublishers.ofString(prompt);
        HttpRequest.BodyPublisher ofBytes = HttpRequest.BodyPublishers.ofByteArray(new byte[40_000]);
        assertThat(BodyCollector.isJdkInMemory(ofString)).isTrue();
        assertThat(BodyCollector.isJdkInMemory(ofBytes)).isTrue();
        assertThat(BodyCollector.isJdkInMemory(HttpRequest.BodyPublishers.ofInputStream(() -> null)))
                .isFalse();

        assertThat(collect(ofString)).isEqualTo(prompt.getBytes(StandardCharsets.UTF_8));
        assertThat(collect(ofBytes)).isEqualTo(new byte[40_000]); // in several buffers
        // each subscription its own bytes: what one attempt keeps, the next does not share
        assertThat(collect(ofString)).isNotSameAs(collect(ofString));
    }

    @Test
    void aFreshBufferThatIsTheWholeBodyIsKeptAsItCame() {
        byte[] body = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);
        BodyCollector fresh = new BodyCollector(body.length, true);
        fresh.onNext(ByteBuffer.wrap(body));
        fresh.onComplete();
        assertThat(fresh.result.join()).isSameAs(body);

        BodyCollector other = new BodyCollector(body.length, false);
        other.onNext(ByteBuffer.wrap(body));
        other.onComplete();
        assertThat(other.result.join()).isEqualTo(body).isNotSameAs(body);
    }

    @Test
    void aPublisherThatReusesItsBufferIsCopied() {
        // writes "ab" then "cd" through one buffer, overwritten after each onNext returns
        byte[] shared = new byte[2];
        BodyCollector collector = new BodyCollector(4, false);
        for (String part : new String[] {"ab", "cd"}) {
            System.arraycopy(part.getBytes(StandardCharsets.US_ASCII), 0, shared, 0, 2);
            collector.onNext(ByteBuffer.wrap(shared));
        }
        Arrays.fill(shared, (byte) 'x');
        collector.onComplete();
        assertThat(new String(collector.result.join(), StandardCharsets.US_ASCII))
                .isEqualTo("abcd");
    }

    @Test
    void moreBytesThanAnnouncedOrNoneAreKept() {
        byte[] body = "0123456789".getBytes(StandardCharsets.US_ASCII);
        BodyCollector longer = new BodyCollector(4, true); // a wrong length: never adopted
        longer.onNext(ByteBuffer.wrap(body, 0, 4).slice());
        longer.onNext(ByteBuffer.wrap(body, 4, 6).slice());
        longer.onComplete();
        assertThat(longer.result.join()).isEqualTo(body);

        BodyCollector unknown = new BodyCollector(-1, false);
        unknown.onNext(ByteBuffer.wrap(body));
        unknown.onComplete();
        assertThat(unknown.result.join()).isEqualTo(body);

        BodyCollector empty = new BodyCollector(0, true);
        empty.onComplete();
        assertThat(empty.result.join()).isEmpty();
    }

    static byte[] collect(HttpRequest.BodyPublisher publisher) {
        BodyCollector collector = new BodyCollector(publisher.contentLength(), BodyCollector.isJdkInMemory(publisher));
        publisher.subscribe(collector);
        return collector.result.join();
    }
}
