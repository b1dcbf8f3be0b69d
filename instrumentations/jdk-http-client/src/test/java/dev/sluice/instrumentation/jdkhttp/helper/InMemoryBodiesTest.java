package dev.sluice.instrumentation.jdkhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Run as the agent runs the helpers: with {@code jdk.internal.net.http} open to them (the module's surefire argLine). */
class InMemoryBodiesTest {

    @Test
    void theJdksPublisherKeepsItsBodyWhereTheHelpersLookForIt() {
        // fails when a JDK keeps the bytes otherwise: the helpers then subscribe, and this says so
        assertThat(InMemoryBodies.available()).isTrue();
    }

    @Test
    void anInMemoryBodyIsReadAsASubscriptionWouldGiveIt() throws Exception {
        String prompt =
                "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"content\":\"h\u00e9 \u20ac " + "p".repeat(8192) + "\"}]}";
        byte[] whole = new byte[40_000];
        Arrays.fill(whole, (byte) 'x');
        whole[7] = 'a';
        for (HttpRequest.BodyPublisher publisher : new HttpRequest.BodyPublisher[] {
            HttpRequest.BodyPublishers.ofString(prompt),
            HttpRequest.BodyPublishers.ofString(prompt, StandardCharsets.UTF_16LE),
            HttpRequest.BodyPublishers.ofString(""),
            HttpRequest.BodyPublishers.ofByteArray(whole),
            HttpRequest.BodyPublishers.ofByteArray(whole, 5, 3),
            HttpRequest.BodyPublishers.ofByteArray(whole, 39_999, 1)
        }) {
            assertThat(InMemoryBodies.of(publisher))
                    .as("%s of %d bytes", publisher.getClass().getSimpleName(), publisher.contentLength())
                    .isEqualTo(BodyCollectorTest.collect(publisher));
        }
    }

    @Test
    void aWholeArrayIsSharedAndAPartCopied() {
        byte[] body = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(InMemoryBodies.of(HttpRequest.BodyPublishers.ofByteArray(body)))
                .isSameAs(body);
        byte[] part = InMemoryBodies.of(HttpRequest.BodyPublishers.ofByteArray(body, 1, 7));
        assertThat(part).isNotSameAs(body).isEqualTo("\"model\"".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anyOtherPublisherIsLeftToASubscription() {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        assertThat(InMemoryBodies.of(
                        HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body))))
                .isNull();
        assertThat(InMemoryBodies.of(HttpRequest.BodyPublishers.ofByteArrays(java.util.List.of(body))))
                .isNull();
        assertThat(InMemoryBodies.of(HttpRequest.BodyPublishers.noBody())).isNull();
        assertThat(InMemoryBodies.of(null)).isNull();
    }
}
