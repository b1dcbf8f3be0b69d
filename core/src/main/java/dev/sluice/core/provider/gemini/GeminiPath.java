package dev.sluice.core.provider.gemini;

import dev.sluice.core.provider.Urls;

/**
 * Where a Gemini API or Vertex AI generation request goes: the model, the method, and on Vertex
 * the project and location. Routes (any API version {@code v1*}):
 *
 * <ul>
 *   <li>Gemini API: {@code /v1beta/models/{model}:generateContent}, {@code .../tunedModels/{model}:...}
 *   <li>Vertex AI: {@code /v1/projects/{p}/locations/{l}/publishers/{publisher}/models/{model}:...},
 *       {@code /v1/projects/{p}/locations/{l}/endpoints/{endpoint}:...} (tuned and deployed
 *       models), and express mode's {@code /v1beta1/publishers/google/models/{model}:...}
 * </ul>
 *
 * Only {@code generateContent} and {@code streamGenerateContent} are governed: {@code countTokens},
 * caching and listing are not LLM calls. Segments are percent-decoded (some clients send
 * {@code %3A} for the colon). Immutable.
 */
final class GeminiPath {

    static final String GENERATE = "generateContent";
    static final String STREAM = "streamGenerateContent";

    final String model;
    final String method;
    /** Vertex only; null elsewhere. */
    final String project;
    /** Vertex only; null elsewhere. */
    final String location;

    private GeminiPath(String model, String method, String project, String location) {
        this.model = model;
        this.method = method;
        this.project = project;
        this.location = location;
    }

    boolean streams() {
        return STREAM.equals(method);
    }

    /** A Gemini API route, or null. */
    static GeminiPath gemini(String rawPath) {
        String[] s = segments(rawPath);
        if (s == null || s.length != 3 || !(s[1].equals("models") || s[1].equals("tunedModels"))) {
            return null;
        }
        return withMethod(s[2], null, null);
    }

    /** A Vertex AI route, or null. */
    static GeminiPath vertex(String rawPath) {
        String[] s = segments(rawPath);
        if (s == null) {
            return null;
        }
        if (s.length == 5 && s[1].equals("publishers") && s[3].equals("models")) {
            return withMethod(s[4], null, null); // express mode: the key names the project
        }
        if (s.length < 6 || !s[1].equals("projects") || !s[3].equals("locations")) {
            return null;
        }
        if (s.length == 9 && s[5].equals("publishers") && s[7].equals("models")) {
            return withMethod(s[8], s[2], s[4]);
        }
        if (s.length == 7 && s[5].equals("endpoints")) {
            return withMethod(s[6], s[2], s[4]);
        }
        return null;
    }

    private static GeminiPath withMethod(String last, String project, String location) {
        int colon = last.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        String method = last.substring(colon + 1);
        if (!method.equals(GENERATE) && !method.equals(STREAM)) {
            return null;
        }
        return new GeminiPath(last.substring(0, colon), method, project, location);
    }

    /** The decoded segments of a path whose first is an API version ({@code v1}, {@code v1beta}, {@code v1beta1}...), or null. */
    private static String[] segments(String rawPath) {
        if (rawPath == null || !rawPath.startsWith("/v1") || rawPath.length() > 2048) {
            return null;
        }
        String path = rawPath.endsWith("/") ? rawPath.substring(1, rawPath.length() - 1) : rawPath.substring(1);
        String[] s = path.split("/", -1);
        for (int i = 0; i < s.length; i++) {
            s[i] = decode(s[i]);
            if (s[i] == null || s[i].isEmpty()) {
                return null;
            }
        }
        return s[0].startsWith("v1") ? s : null;
    }

    /** Percent-decodes one segment ({@code +} stays a plus in a path); null when malformed. */
    static String decode(String segment) {
        return Urls.decodeSegment(segment);
    }
}
