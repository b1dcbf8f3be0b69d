package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.ledger.Exchange;
import dev.sluice.simulator.ledger.Outcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultsTest {
    private final FakeClock clock = new FakeClock();
    private final Simulator sim =
            Simulator.builder().profile(Profile.OPENAI).clock(clock).instant().start();

    @BeforeEach
    void reset() {
        sim.reset();
    }

    @AfterAll
    void close() {
        sim.close();
    }

    private int status(String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer sk-f";
        System.arraycopy(headers, 0, all, 2, headers.length);
        return Http.post(sim.apiBaseUrl() + "/chat/completions", Bodies.chat(), all)
                .statusCode();
    }

    @Test
    void overloadBurstsForTheNextRequestsOrForATimeSpan() {
        sim.faults().overloadNext(2);
        assertThat(List.of(status(), status(), status())).containsExactly(503, 503, 200);
        sim.faults().overloadFor(Duration.ofSeconds(10));
        assertThat(status()).isEqualTo(503);
        clock.advance(Duration.ofSeconds(11));
        assertThat(status()).isEqualTo(200);
        assertThat(sim.ledger().counts().overloaded()).isEqualTo(3);
        var body = Http.post(
                        sim.apiBaseUrl() + "/chat/completions",
                        Bodies.chat(),
                        "Authorization",
                        "Bearer k",
                        "x-sim-force",
                        "overload")
                .body();
        assertThat(body).contains("\"code\":\"server_is_overloaded\"");
    }

    @Test
    void aConnectionResetBeforeTheResponse() {
        sim.faults().next(FaultKind.CONNECTION_RESET, 1);
        assertThatThrownBy(() -> Http.post(
                        sim.apiBaseUrl() + "/chat/completions", Bodies.chat(), "Authorization", "Bearer sk-f"))
                .hasCauseInstanceOf(IOException.class);
        Exchange e = sim.ledger().exchanges().get(0);
        assertThat(e.outcome()).isEqualTo(Outcome.RESET);
        assertThat(e.admitted()).isTrue();
        assertThat(status()).isEqualTo(200);
    }

    @Test
    void malformedRateLimitHeaders() {
        sim.faults().next(FaultKind.MALFORMED_HEADERS, 1);
        var r = Http.post(sim.apiBaseUrl() + "/chat/completions", Bodies.chat(), "Authorization", "Bearer k");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("lots");
        assertThat(r.headers().firstValue("x-ratelimit-reset-tokens")).hasValue("1x2y");
        assertThat(r.headers().firstValue("retry-after")).hasValue("whenever");
    }

    @Test
    void aTruncatedStreamStopsMidWayWithoutTheEndOfTheChunkedBody() throws Exception {
        String body = Bodies.chat(40, 10, true, true);
        String request = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer k\r\nx-sim-force: truncated_stream\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body;
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        try (Socket socket = new Socket("127.0.0.1", sim.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[8192];
            int n;
            try {
                while ((n = in.read(buf)) > 0) {
                    received.write(buf, 0, n);
                }
            } catch (IOException resetByServer) {
                // also a cut
            }
        }
        String wire = received.toString(StandardCharsets.UTF_8);
        assertThat(wire)
                .startsWith("HTTP/1.1 200")
                .contains("\"content\":\"Sluice\"", "\"content\":\" of\"")
                .doesNotContain("\"content\":\" tokens\"", "[DONE]", "\"usage\":{");
        assertThat(wire).doesNotEndWith("0\r\n\r\n");
        assertThat(sim.ledger().exchanges().get(0).fault()).isEqualTo("truncated_stream");
        assertThat(sim.ledger().exchanges().get(0).outputTokens()).isEqualTo(5);
    }

    @Test
    void theSdkSeesATruncatedStreamAsAnError() {
        OpenAIClient client = OpenAIOkHttpClient.builder()
                .baseUrl(sim.apiBaseUrl())
                .apiKey("k")
                .build();
        try {
            sim.faults().next(FaultKind.TRUNCATED_STREAM, 1);
            List<ChatCompletionChunk> seen = new ArrayList<>();
            assertThatThrownBy(() -> {
                        try (StreamResponse<ChatCompletionChunk> s = client.chat()
                                .completions()
                                .createStreaming(ChatCompletionCreateParams.builder()
                                        .model("gpt-4o-mini")
                                        .addUserMessage("hi")
                                        .maxCompletionTokens(40)
                                        .build())) {
                            s.stream().forEach(seen::add);
                        }
                    })
                    .isInstanceOf(RuntimeException.class);
            assertThat(seen).isNotEmpty().noneMatch(c -> c.usage().isPresent());
        } finally {
            client.close();
        }
    }

    @Test
    void aSlowFirstByte() throws Exception {
        sim.faults().slowFirstByteDelay(Duration.ofMillis(400)).next(FaultKind.SLOW_FIRST_BYTE, 1);
        var slow = Http.stream(
                sim.apiBaseUrl() + "/chat/completions", Bodies.chat(4, 3, true, false), "Authorization", "Bearer k");
        assertThat(slow.headersAtMillis()).isGreaterThanOrEqualTo(380);
        var fast = Http.stream(
                sim.apiBaseUrl() + "/chat/completions", Bodies.chat(4, 3, true, false), "Authorization", "Bearer k");
        assertThat(fast.headersAtMillis()).isLessThan(380);
    }

    @Test
    void forcedAnswersAreCountedAsErrorsAndAttemptedOnce() {
        for (String kind : List.of("bad_request", "server_error", "budget_exceeded", "no_endpoint_for_policy")) {
            Http.post(
                    sim.apiBaseUrl() + "/chat/completions",
                    Bodies.chat(),
                    "Authorization",
                    "Bearer k",
                    "x-sim-force",
                    kind,
                    "x-sim-call-id",
                    kind);
        }
        assertThat(sim.ledger().exchanges()).extracting(Exchange::status).containsExactly(400, 500, 402, 409);
        assertThat(sim.ledger().attemptsPerCall())
                .hasSize(4)
                .allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
        assertThat(Http.post(sim.apiBaseUrl() + "/chat/completions", Bodies.chat(), "x-sim-force", "nonsense")
                        .body())
                .contains("unknown fault: nonsense");
    }
}
