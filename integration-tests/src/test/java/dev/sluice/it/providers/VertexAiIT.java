package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import org.junit.jupiter.api.Test;

/**
 * Vertex AI through the raw JDK HttpClient. Vertex sends no rate-limit headers, so its quota is
 * configured; the call is recognised by its public regional host with no {@code match}.
 *
 * <p>{@code us-central1-aiplatform.googleapis.com} cannot be served on loopback under its own
 * name, so the forked JVM resolves it to 127.0.0.1 through {@code -Djdk.net.hosts.file}
 * ({@link LoopbackHosts}): the application and Sluice both see the real host name, and the test
 * proves recognition by host. The other way, a {@code match.urls} entry naming
 * {@code http://127.0.0.1:<port>/v1/projects/}, proves only that configured URLs work, which
 * {@link OpenAiCompatibleIT} already shows.
 */
class VertexAiIT {

    static final String HOST = "us-central1-aiplatform.googleapis.com";

    @Test
    void aConfiguredQuotaPacesCallsToARegionalEndpoint() throws Exception {
        int threads = 4;
        int calls = 8;
        try (VertexStub vertex = new VertexStub(10, 2_000)) {
            String config = ProviderRuns.file(
                    ".yaml",
                    "providers:",
                    "  - name: vertex",
                    "    kind: vertex-ai",
                    "    limits:",
                    "      - {dimension: requests, capacity: 10, window: 2s}");
            String url = LoopbackHosts.url(
                    HOST,
                    vertex.port(),
                    "/v1/projects/acme/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent");
            ForkedApp.Result r = ProviderRuns.jdkHttp(
                            url, threads, calls, ProviderRuns.GEMINI_BODY, "Authorization=Bearer ya29.test-token", null)
                    .withAgent("config=" + config)
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .run()
                    .assertOk();
            JsonNode s = r.summary();
            System.out.printf(
                    "vertex governed: arrivals=%d admitted=%d rejected=%d%n  %s%n",
                    vertex.arrivals.get(), vertex.admitted.get(), vertex.rejected.get(), s);
            assertThat(r.startLine()).contains("config=file " + config);
            // Every call succeeds: Vertex's 429 has no RetryInfo, so Sluice backs off and retries it itself.
            assertThat(s.path("counters").path("status:200").asLong()).isEqualTo((long) threads * calls);
            // A mirrored token bucket runs ahead of the provider's by refill rate x the first calls'
            // latency (connection set-up, warm-up): while the provider's bucket sits full, its refill
            // is lost, Sluice's is not. That lead (5/s x well under 1 s here) is the only room for a
            // 429; measured 1 to 3 per run, all in the first second. Pacing holds after it.
            assertThat(vertex.rejected.get()).as("provider 429s").isLessThanOrEqualTo(5);
            assertThat(vertex.arrivals.get()).isEqualTo((long) threads * calls + vertex.rejected.get());
        }
    }
}
