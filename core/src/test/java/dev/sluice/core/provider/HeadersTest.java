package dev.sluice.core.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersTest {

    @Test
    void namesAreLookedUpWhateverTheirCase() {
        Map<String, List<String>> raw = new LinkedHashMap<>();
        raw.put("Content-Type", List.of("application/json"));
        raw.put("x-ratelimit-remaining-tokens", List.of(" 1200 "));
        Headers headers = Headers.of(raw);

        assertThat(headers.first("content-type")).isEqualTo("application/json");
        assertThat(headers.first("CONTENT-TYPE")).isEqualTo("application/json");
        assertThat(headers.first("X-RateLimit-Remaining-Tokens")).isEqualTo("1200"); // trimmed
        assertThat(headers.contains("Content-type")).isTrue();
        assertThat(headers.all("content-TYPE")).containsExactly("application/json");
        assertThat(headers.first("retry-after")).isNull();
        assertThat(headers.all("retry-after")).isEmpty();
        assertThat(headers.contains("retry-after")).isFalse();
        assertThat(headers.first(null)).isNull();
    }

    @Test
    void oneNameInTwoCasesKeepsEveryValueInOrder() {
        Map<String, List<String>> raw = new LinkedHashMap<>();
        raw.put("Set-Cookie", List.of("a=1"));
        raw.put("set-cookie", List.of("b=2", "c=3"));
        Headers headers = Headers.of(raw);

        assertThat(headers.all("SET-COOKIE")).containsExactly("a=1", "b=2", "c=3");
        assertThat(headers.first("set-cookie")).isEqualTo("a=1");
        assertThat(raw.get("Set-Cookie")).containsExactly("a=1"); // the library's lists are not changed
    }

    @Test
    void statusLinesAndMissingValuesAreDropped() {
        Map<String, List<String>> raw = new HashMap<>();
        raw.put(null, List.of("HTTP/1.1 200 OK")); // HttpURLConnection's status line
        raw.put("x-empty", null);
        raw.put("x-blank", Arrays.asList((String) null));
        Headers headers = Headers.of(raw);

        assertThat(headers.contains("x-empty")).isFalse();
        assertThat(headers.first("x-blank")).isNull();
        assertThat(headers.asMap()).containsOnlyKeys("x-blank");
        assertThat(Headers.of(null).first("a")).isNull();
        assertThat(Headers.of(Map.of()).asMap()).isEmpty();
    }

    @Test
    void contentLengthIsANonNegativeNumberOrMinusOne() {
        assertThat(length("2634")).isEqualTo(2634);
        assertThat(length(" 0 ")).isZero();
        assertThat(length(null)).isEqualTo(-1);
        assertThat(length("")).isEqualTo(-1);
        assertThat(length("-5")).isEqualTo(-1);
        assertThat(length("12a")).isEqualTo(-1);
        assertThat(length("1.5")).isEqualTo(-1);
        assertThat(length("99999999999999999999999")).isEqualTo(-1); // would overflow a long
    }

    private static long length(String value) {
        Map<String, List<String>> raw = new HashMap<>();
        if (value != null) {
            raw.put("Content-Length", List.of(value));
        }
        return Headers.of(raw).contentLength();
    }
}
