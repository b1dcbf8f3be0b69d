package dev.sluice.instrumentation.jdkhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class JdkHttpTransportTest {

    private static final URI CHAT = URI.create("https://api.openai.com/v1/chat/completions");

    private static JdkHttpTransport transport(HttpRequest request) throws Exception {
        @SuppressWarnings({"unchecked", "rawtypes"})
        HttpResponse.BodyHandler<Object> handler = (HttpResponse.BodyHandler) HttpResponse.BodyHandlers.ofString();
        JdkHttpTransport t = new JdkHttpTransport(HttpClient.newHttpClient(), request, handler, null);
        t.collectBody().get();
        return t;
    }

    @Test
    void aRequestWithAnInMemoryBodyAndNoPrivateHeaderIsSentAsItCame() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(CHAT)
                .header("authorization", "Bearer sk-test")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                .build();
        assertThat(transport(request).outgoing()).isSameAs(request);
    }

    @Test
    void aPrivateHeaderOrABodyThatCannotBeReplayedMakesARequestOfItsOwn() throws Exception {
        HttpRequest tenant = HttpRequest.newBuilder(CHAT)
                .header("authorization", "Bearer sk-test")
                .header("X-Sluice-Tenant", "acme")
                .timeout(Duration.ofSeconds(7))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                .build();
        HttpRequest stripped = transport(tenant).outgoing();
        assertThat(stripped).isNotSameAs(tenant);
        assertThat(stripped.headers().firstValue("X-Sluice-Tenant")).isEmpty();
        assertThat(stripped.headers().firstValue("authorization")).hasValue("Bearer sk-test");
        assertThat(stripped.timeout()).hasValue(Duration.ofSeconds(7));
        assertThat(stripped.bodyPublisher().orElseThrow().contentLength()).isEqualTo(13);

        byte[] body = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);
        HttpRequest streamed = HttpRequest.newBuilder(CHAT)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body)))
                .build();
        JdkHttpTransport t = transport(streamed);
        assertThat(t.outgoing()).isNotSameAs(streamed);
        assertThat(t.requestBody()).isEqualTo(body);
    }
}
