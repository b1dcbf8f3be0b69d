package dev.sluice.it.providers;

import dev.sluice.it.harness.ForkedApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Request bodies, config files and {@link JdkHttpApp} runs shared by the provider tests. */
final class ProviderRuns {

    static final String CHAT_BODY = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":"
            + "\"Say hello to the integration test, briefly.\"}],\"max_tokens\":32}";
    static final String GEMINI_BODY = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":"
            + "\"Say hello to the integration test, briefly.\"}]}],\"generationConfig\":{\"maxOutputTokens\":32}}";

    private ProviderRuns() {}

    /** A temp file with these lines (a config for {@code config=...}, a request body); deleted at exit. */
    static String file(String suffix, String... lines) {
        try {
            Path file = Files.createTempFile("sluice-it-", suffix);
            Files.writeString(file, String.join("\n", lines) + "\n");
            file.toFile().deleteOnExit();
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@link JdkHttpApp} posting {@code body} to {@code url}; headers as {@code k=v;k=v} ({@code {t}}
     * is the thread's parity), faults to force after the load as {@code f1,f2}; either may be null.
     */
    static ForkedApp jdkHttp(String url, int threads, int calls, String body, String headers, String after) {
        return ForkedApp.of(JdkHttpApp.class)
                .args(
                        url,
                        threads,
                        calls,
                        file(".json", body),
                        headers == null ? "-" : headers,
                        after == null ? "-" : after,
                        "async");
    }
}
