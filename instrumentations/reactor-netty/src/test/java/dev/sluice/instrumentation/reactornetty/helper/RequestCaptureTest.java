package dev.sluice.instrumentation.reactornetty.helper;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AttributeKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufMono;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.client.HttpClient;

/**
 * The request of a real Reactor Netty client, read ahead of admission: what the application's
 * body function writes (its headers and body) is what the governor estimates, and nothing of it
 * reaches a network (the URL below is never resolved).
 */
class RequestCaptureTest {

    private static final String URL = "https://api.openai.com/v1/chat/completions";
    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":32}";

    private static HttpClient client() {
        return HttpClient.create().headers(h -> h.set("Authorization", "Bearer sk-test"));
    }

    private static RequestCapture.Captured capture(Object finalizer) {
        return RequestCapture.capture((HttpClient) finalizer).block(Duration.ofSeconds(10));
    }

    @Test
    void readsTheBodyAndTheHeadersTheBodyFunctionSets() {
        Object finalizer = client().post().uri(URL).send((req, out) -> {
            req.header("X-Sluice-Tenant", "search");
            return out.sendString(Mono.just(CHAT));
        });

        RequestCapture.Captured c = capture(finalizer);

        assertThat(new String(c.body, StandardCharsets.UTF_8)).isEqualTo(CHAT);
        assertThat(header(c.headers, "authorization")).containsExactly("Bearer sk-test");
        assertThat(header(c.headers, "x-sluice-tenant")).containsExactly("search");
    }

    @Test
    void joinsABodyWrittenInChunks() {
        Object finalizer = client().post()
                .uri(URL)
                .send(Flux.just("{\"model\":", "\"gpt-4o-mini\",", "\"max_tokens\":32}")
                        .map(s -> Unpooled.copiedBuffer(s, StandardCharsets.UTF_8)));

        assertThat(new String(capture(finalizer).body, StandardCharsets.UTF_8)).isEqualTo(CHAT);
    }

    @Test
    void aBodyFunctionThatCastsTheRequestToChannelOperationsAsSpringsDoes() {
        AttributeKey<String> key = AttributeKey.valueOf("it.attributes");
        Object finalizer = client().post()
                .uri(URL)
                .send((req, out) -> Mono.defer(() -> {
                    ((ChannelOperations<?, ?>) req).channel().attr(key).set("x");
                    return out.send(ByteBufMono.fromString(Mono.just(CHAT))).then();
                }));

        assertThat(new String(capture(finalizer).body, StandardCharsets.UTF_8)).isEqualTo(CHAT);
    }

    @Test
    void aBodyFunctionThatFailsLeavesTheCallWithoutABodyNotFailed() {
        Object finalizer = client().post().uri(URL).send((req, out) -> {
            throw new IllegalStateException("the application's own bug");
        });

        RequestCapture.Captured c = capture(finalizer);

        assertThat(c.body).isNull();
        assertThat(header(c.headers, "authorization")).containsExactly("Bearer sk-test");
    }

    @Test
    void aBodyPublisherThatFailsLeavesTheCallWithoutABody() {
        Object finalizer = client().post().uri(URL).send(Mono.<ByteBuf>error(new IllegalStateException("no body")));

        assertThat(capture(finalizer).body).isNull();
    }

    @Test
    void aRequestWithoutBody() {
        Object finalizer = client().get().uri("https://api.openai.com/v1/models");

        assertThat(capture(finalizer).body).isNull();
    }

    @Test
    void theUrlAsReactorNettyResolvesIt() {
        assertThat(ReactorNettyHook.urlOf(((HttpClient) client().post().uri(URL)).configuration()))
                .isEqualTo(URL);
        HttpClient based = client().baseUrl("https://api.openai.com/");
        assertThat(ReactorNettyHook.urlOf(((HttpClient) based.post().uri("/v1/chat/completions")).configuration()))
                .isEqualTo(URL);
        assertThat(ReactorNettyHook.urlOf(((HttpClient) client().post().uri("/v1/chat/completions")).configuration()))
                .as("relative, no base URL: the host is only known once connected")
                .isNull();
    }

    private static List<String> header(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return List.of();
    }
}
