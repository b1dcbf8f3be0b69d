package dev.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The URL-match benchmark asks about the URLs it claims to: a provider's, governed, and one no provider has. */
class UrlMatchBenchmarkTest {

    @Test
    void aProvidersUrlIsGovernedAndAnInternalOneIsNot() {
        assertThat(governs("https://api.openai.com/v1/chat/completions")).isTrue();
        assertThat(governs("https://llm.internal.test/v1/chat/completions")).isFalse();
    }

    private static boolean governs(String url) {
        UrlMatchBenchmark benchmark = new UrlMatchBenchmark();
        benchmark.url = url;
        benchmark.start();
        try {
            boolean first = benchmark.governs();
            assertThat(benchmark.governs()).as("asked again").isEqualTo(first);
            return first;
        } finally {
            benchmark.stop();
        }
    }
}
