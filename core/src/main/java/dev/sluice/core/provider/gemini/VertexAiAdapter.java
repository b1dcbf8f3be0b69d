package dev.sluice.core.provider.gemini;

import dev.sluice.core.provider.wire.HostNames;
import java.util.function.LongSupplier;

/**
 * Gemini on Vertex AI ({@code aiplatform.googleapis.com} and the regional
 * {@code <region>-aiplatform.googleapis.com}):
 * {@code /v1/projects/{p}/locations/{l}/publishers/google/models/{model}:generateContent} and
 * {@code :streamGenerateContent}, tuned-model endpoints, and express mode's
 * {@code /v1beta1/publishers/google/models/{model}:...}. Same body, usage and error formats as the
 * Gemini API; its quota is per project, region and model, so the provider scope is the project and
 * location of the path. The key id is the hashed Bearer token (or an express-mode API key). No
 * rate-limit headers. Stateless and thread-safe.
 */
public final class VertexAiAdapter extends GenerateContentAdapter {

    /** The kind named in config. */
    public static final String KIND = "vertex-ai";

    private static final String GLOBAL_HOST = "aiplatform.googleapis.com";
    private static final String REGIONAL_SUFFIX = "-aiplatform.googleapis.com";

    /** An adapter on the system wall clock. */
    public VertexAiAdapter() {
        this(System::currentTimeMillis);
    }

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    public VertexAiAdapter(LongSupplier wallClockMillis) {
        super(KIND, wallClockMillis);
    }

    @Override
    public boolean recognisesHost(String host) {
        String h = HostNames.bare(host);
        boolean vertexHost = h.equals(GLOBAL_HOST)
                || (h.endsWith(REGIONAL_SUFFIX)
                        && h.length() > REGIONAL_SUFFIX.length()
                        && h.indexOf('.') > h.length() - REGIONAL_SUFFIX.length());
        return vertexHost;
    }

    @Override
    public boolean recognises(String host, String path) {
        return recognisesHost(host) && route(path) != null;
    }

    @Override
    GeminiPath route(String path) {
        return GeminiPath.vertex(path);
    }
}
