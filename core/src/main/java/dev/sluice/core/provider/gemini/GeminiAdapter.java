package dev.sluice.core.provider.gemini;

import dev.sluice.core.provider.wire.HostNames;
import java.util.function.LongSupplier;

/**
 * The Gemini API ({@code generativelanguage.googleapis.com}): {@code generateContent} and
 * {@code streamGenerateContent} (SSE with {@code alt=sse}, a JSON array without), the model named
 * in the path. A request is charged one request and its input estimate, as Gemini counts RPM, RPD
 * and input TPM (providers.md); the key id comes from {@code x-goog-api-key} or the {@code key}
 * query parameter, hashed. Gemini sends no rate-limit headers: its limits are learned from 429s
 * and configuration only. Stateless and thread-safe.
 */
public final class GeminiAdapter extends GenerateContentAdapter {

    /** The kind named in config. */
    public static final String KIND = "gemini";

    private static final String HOST = "generativelanguage.googleapis.com";

    /** An adapter on the system wall clock. */
    public GeminiAdapter() {
        this(System::currentTimeMillis);
    }

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    public GeminiAdapter(LongSupplier wallClockMillis) {
        super(KIND, wallClockMillis);
    }

    @Override
    public boolean recognisesHost(String host) {
        return HOST.equals(HostNames.bare(host));
    }

    @Override
    public boolean recognises(String host, String path) {
        return HOST.equals(HostNames.bare(host)) && route(path) != null;
    }

    @Override
    GeminiPath route(String path) {
        return GeminiPath.gemini(path);
    }
}
