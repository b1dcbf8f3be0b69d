package dev.sluice.core.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UrlsTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "https://api.openai.com/v1/chat/completions",
                "https://api.openai.com",
                "https://api.openai.com/",
                "https://api.openai.com?x=1",
                "https://API.OpenAI.com:443/v1/responses?stream=true#frag",
                "http://user:secret@127.0.0.1:8080/v1/messages",
                "http://user@host/path",
                "http://[::1]:8080/v1/chat/completions?a=b",
                "http://[::1]/x",
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?key=abc%20d&alt=sse",
                "https://r.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
                "https://host/a%2Fb/c?next=https://elsewhere/x",
                "https://host#only-a-fragment?not-a-query",
                "https://host/p?q#f?g",
                "https://host/p?",
                "https://host:8443"
            })
    void findsThePartsWhereUriDoes(String url) {
        assertSameAsUri(url);
    }

    /** Random URLs assembled from the pieces an HTTP library may hand over, each read both ways. */
    @Test
    void randomUrlsReadAsUriReadsThem() {
        Random random = new Random(19);
        String[] hosts = {"api.openai.com", "LOCALHOST", "127.0.0.1", "[::1]", "[2001:db8::7]", "a-b.example"};
        String[] userInfos = {"", "", "u@", "u:p@", "u%40x:p@"};
        String[] ports = {"", "", ":80", ":8443"};
        String[] paths = {"", "/", "/v1/chat/completions", "/v1beta/models/m:generateContent", "/a%20b/c", "/x:y/z"};
        String[] queries = {"", "?", "?key=k", "?a=1&b=https://x/y", "?a=%3F"};
        String[] fragments = {"", "#", "#top", "#a?b"};
        for (int i = 0; i < 2_000; i++) {
            String url = (random.nextBoolean() ? "https://" : "http://")
                    + pick(random, userInfos)
                    + pick(random, hosts)
                    + pick(random, ports)
                    + pick(random, paths)
                    + pick(random, queries)
                    + pick(random, fragments);
            assertSameAsUri(url);
        }
    }

    @Test
    void aUrlWithoutAnAuthorityHasNoHost() {
        assertThat(Urls.host("/v1/chat/completions")).isEmpty();
        assertThat(Urls.rawPath("/v1/chat/completions?x=1")).isEqualTo("/v1/chat/completions");
        assertThat(Urls.host("mailto:someone@example.com")).isEmpty();
        assertThat(Urls.host("/redirect?to=https://api.openai.com/v1")).isEmpty();
        assertThat(Urls.rawPath("/redirect?to=https://api.openai.com/v1")).isEqualTo("/redirect");
    }

    @Test
    void aUrlUriRefusesIsStillReadNotThrown() {
        String spaced = "https://api.openai.com/v1/chat completions?x=a b";
        assertThat(Urls.host(spaced)).isEqualTo("api.openai.com");
        assertThat(Urls.rawPath(spaced)).isEqualTo("/v1/chat completions");
        assertThat(Urls.rawQuery(spaced)).isEqualTo("x=a b");
    }

    private static void assertSameAsUri(String url) {
        URI uri = URI.create(url);
        assertThat(Urls.host(url)).as("host of %s", url).isEqualTo(uri.getHost() == null ? "" : uri.getHost());
        assertThat(Urls.rawPath(url)).as("path of %s", url).isEqualTo(uri.getRawPath() == null ? "" : uri.getRawPath());
        assertThat(Urls.rawQuery(url)).as("query of %s", url).isEqualTo(uri.getRawQuery());
    }

    private static String pick(Random random, String[] options) {
        return options[random.nextInt(options.length)];
    }
}
