package dev.sluice.it.apps;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.sluice.it.harness.AppReport;

/**
 * A service using the real anthropic-java SDK at its default settings, either {@code sync} (one
 * message per call) or {@code stream} (each call reads its event stream to the end).
 *
 * <p>Arguments: baseUrl sync|stream threads calls
 */
public final class AnthropicApp {

    public static void main(String[] args) throws Exception {
        AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(args[0])
                .apiKey("sk-ant-test-app")
                .build();
        boolean stream = args[1].equals("stream");
        MessageCreateParams params = MessageCreateParams.builder()
                .model("claude-3-5-haiku-latest")
                .maxTokens(32)
                .addUserMessage("Say hello to the integration test, briefly.")
                .build();
        AppReport report = Load.closedLoop(
                Integer.parseInt(args[2]),
                Integer.parseInt(args[3]),
                (thread, i) -> {
                    if (!stream) {
                        client.messages().create(params);
                        return;
                    }
                    try (StreamResponse<RawMessageStreamEvent> events =
                            client.messages().createStreaming(params)) {
                        if (events.stream().count() == 0) {
                            throw new IllegalStateException("empty stream");
                        }
                    }
                },
                AnthropicApp::body);
        Load.finish(report);
    }

    static String body(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof AnthropicServiceException)) {
            t = t.getCause();
        }
        return t == null ? null : String.valueOf(((AnthropicServiceException) t).body());
    }
}
