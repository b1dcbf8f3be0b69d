package dev.sluice.core.provider.gemini;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderRequest;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.wire.ApiKeyIds;

/**
 * What the Gemini API and Vertex AI share: the {@code generateContent} body, how a request is
 * charged, and where its key is. Gemini's limiter counts requests (per minute and per day) and
 * input tokens per minute, not output, so a request is charged one request and its input
 * estimate; the input is trued up to the reported prompt count, which is what Gemini counted.
 */
final class GeminiProtocol {

    private GeminiProtocol() {}

    static RequestFacts read(String kind, ProviderRequest request, GeminiPath route, TokenEstimator estimator) {
        GeminiRequestBody body = GeminiRequestBody.read(request.body(), request.bodyLength());
        String model = route == null ? null : route.model;
        long input = body.estimateInputTokens(estimator, model);
        Headers headers = request.headers();
        RequestFacts.Builder facts = RequestFacts.builder(kind)
                .operation(route == null ? "unknown" : route.method)
                .model(model)
                .streaming(route != null && route.streams())
                .maxOutputTokens(body.maxOutputTokens())
                .estimatedInputTokens(input)
                .apiKeyId(keyId(request))
                .providerCharge(Dimension.INPUT_TOKENS, input)
                .providerCharge(Dimension.REQUESTS, 1);
        if (route != null && route.project != null) {
            facts.providerScope("project", route.project).providerScope("location", route.location);
        } else {
            facts.providerScope("project", headers.first("x-goog-user-project"));
        }
        return facts.build();
    }

    /** {@code x-goog-api-key}, else the {@code key} query parameter, else a Bearer token: hashed, never kept. */
    static String keyId(ProviderRequest request) {
        String id = ApiKeyIds.fromHeader(request.headers(), "x-goog-api-key");
        if (id == null) {
            id = ApiKeyIds.of(queryParameter(request.rawQuery(), "key"));
        }
        return id != null ? id : ApiKeyIds.fromBearer(request.headers());
    }

    /** A query parameter's decoded value, or null. */
    static String queryParameter(String rawQuery, String name) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return null;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (key.equals(name)) {
                String value =
                        eq < 0 ? "" : GeminiPath.decode(pair.substring(eq + 1).replace('+', ' '));
                return value == null || value.isEmpty() ? null : value;
            }
        }
        return null;
    }
}
