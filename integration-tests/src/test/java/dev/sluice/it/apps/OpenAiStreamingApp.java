package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import dev.sluice.it.harness.AppReport;

/**
 * A service streaming chat completions with openai-java at its default settings (no
 * {@code include_usage}): each call reads its stream to the end and counts the chunks.
 *
 * <p>Arguments: baseUrl threads calls
 */
public final class OpenAiStreamingApp {

    public static void main(String[] args) throws Exception {
        OpenAIClient client = OpenAiChatApp.client(args[0], null);
        AppReport report = Load.closedLoop(
                Integer.parseInt(args[1]),
                Integer.parseInt(args[2]),
                (thread, i) -> {
                    try (StreamResponse<ChatCompletionChunk> stream =
                            client.chat().completions().createStreaming(OpenAiChatApp.params())) {
                        long chunks = stream.stream().count();
                        if (chunks == 0) {
                            throw new IllegalStateException("empty stream");
                        }
                    }
                },
                OpenAiChatApp::body);
        Load.finish(report);
    }
}
