package dev.sluice.benchmarks.overhead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The replaying provider must give every call the simulator's own answer to its kind of call, or
 * the overhead measured against it would be Sluice's work on some other answer: the usage and the
 * rate-limit headers Sluice reads, a streamed answer for a streamed request, and the simulator
 * asked once per kind, not once per call.
 */
class ReplayingProviderTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":20,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}";
    private static final String STREAMED = CHAT.replace("{\"model\"", "{\"stream\": true,\"model\"");

    @ParameterizedTest(name = "{0} answering thread(s)")
    @ValueSource(ints = {1, 2})
    void answersEachKindOfCallWithTheSimulatorsFirstAnswerToIt(int threads) throws Exception {
        try (Simulator sim = Simulator.builder()
                        .profile(Profile.OPENAI)
                        .instant()
                        .outputTokens(20)
                        .limit(Dimension.REQUESTS, 1_000_000L, Duration.ofMinutes(1))
                        .start();
                ReplayingProvider replay = ReplayingProvider.start(sim.port(), threads)) {
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> first = call(client, replay.port(), CHAT);
            HttpResponse<String> second = call(client, replay.port(), CHAT);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).contains("\"usage\"").contains("\"completion_tokens\":20");
            assertThat(first.headers().firstValue("x-ratelimit-remaining-requests"))
                    .isPresent();
            assertThat(second.body()).isEqualTo(first.body());
            assertThat(withoutDate(second)).isEqualTo(withoutDate(first));
            assertThat(replay.kinds()).isEqualTo(1);

            HttpResponse<String> streamed = call(client, replay.port(), STREAMED);
            assertThat(streamed.headers().firstValue("content-type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("text/event-stream"));
            assertThat(streamed.body()).startsWith("data: ").contains("[DONE]");
            assertThat(replay.kinds()).isEqualTo(2);
        }
    }

    private static Map<String, List<String>> withoutDate(HttpResponse<String> r) {
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(r.headers().map());
        headers.remove("date");
        return headers;
    }

    private static HttpResponse<String> call(HttpClient client, int port, String body) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                        .header("Authorization", "Bearer sk-test")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
