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
        assertThat(headers.asMap()).containsOnlyKeys("x-blank").containsKey("X-BLANK");
        assertThat(Headers.of(null).first("a")).isNull();
        assertThat(Headers.of(Map.of()).asMap()).isEmpty();
    }

    @Test
    void manyNamesThatShareSlotsAreAllFound() {
        Map<String, List<String>> raw = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) {
            raw.put((i % 2 == 0 ? "X-Header-" : "x-header-") + i, List.of("v" + i));
        }
        Headers headers = Headers.of(raw);
        for (int i = 0; i < 300; i++) {
            assertThat(headers.first("X-HEADER-" + i)).isEqualTo("v" + i);
        }
        assertThat(headers.first("x-header-300")).isNull();
        assertThat(headers.asMap()).hasSize(300);
        // one name in one slot: a single header, and names that differ by more than case
        assertThat(Headers.of(Map.of("A", List.of("1"))).first("a")).isEqualTo("1");
        assertThat(Headers.of(Map.of("A", List.of("1"))).first("b")).isNull();
        assertThat(Headers.of(Map.of("x-a", List.of("1"))).first("x_a")).isNull();
        assertThat(Headers.empty().first("a")).isNull();
    }

    @Test
    void namesAlikeWhereTheyAreHashedAreStillTold() {
        // same length, first, middle and last two chars: one hash, told apart by the whole name
        List<String> alike = List.of("x-aaaa-m-aaaa-ab", "x-abaa-m-aaaa-ab", "x-aaaa-m-aaba-ab", "X-AAAA-M-AAAA-AB");
        assertThat(alike.stream().map(Headers::foldedHash).distinct()).hasSize(1);
        Map<String, List<String>> raw = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            raw.put(alike.get(i), List.of("v" + i));
        }
        raw.put("", List.of("empty"));
        raw.put("r", List.of("one char"));
        Headers headers = Headers.of(raw);
        assertThat(headers.first("X-ABAA-M-AAAA-AB")).isEqualTo("v1");
        assertThat(headers.first("x-aaaa-m-aaba-ab")).isEqualTo("v2");
        assertThat(headers.all(alike.get(3))).containsExactly("v0");
        assertThat(headers.first("x-aaaa-m-abaa-ab")).isNull();
        assertThat(headers.first("")).isEqualTo("empty");
        assertThat(headers.first("R")).isEqualTo("one char");
    }

    @Test
    void pairsAreReadInTheOrderTheyCameWhateverTheCase() {
        java.util.Random random = new java.util.Random(3);
        String[] names = {
            "Content-Type", "content-type", "Set-Cookie", "SET-COOKIE", "x-ratelimit-limit-tokens", "X-Request-Id", "a"
        };
        for (int round = 0; round < 500; round++) {
            int n = random.nextInt(12);
            String[] pairs = new String[n * 2];
            // each name as first spelt, its values in the order they came, in any case
            Map<String, List<String>> expected = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = names[random.nextInt(names.length)];
                String value = "v" + i;
                pairs[2 * i] = name;
                pairs[2 * i + 1] = value;
                String spelt = expected.keySet().stream()
                        .filter(name::equalsIgnoreCase)
                        .findFirst()
                        .orElse(name);
                expected.computeIfAbsent(spelt, k -> new java.util.ArrayList<>())
                        .add(value);
            }
            Headers fromPairs = Headers.ofPairs(pairs);
            assertThat(fromPairs.asMap()).as(Arrays.toString(pairs)).isEqualTo(expected);
            for (String name : names) {
                assertThat(fromPairs.all(name))
                        .as(name)
                        .isEqualTo(expected.entrySet().stream()
                                .filter(e -> e.getKey().equalsIgnoreCase(name))
                                .map(Map.Entry::getValue)
                                .findFirst()
                                .orElse(List.of()));
            }
        }
        // null names or values, and an odd last name, are dropped
        Headers odd = Headers.ofPairs(new String[] {"A", "1", null, "2", "B", null, "a", "3", "C"});
        assertThat(odd.all("a")).containsExactly("1", "3");
        assertThat(odd.contains("B")).isFalse();
        assertThat(odd.contains("C")).isFalse();
        assertThat(Headers.ofPairs(null).contains("a")).isFalse();
        assertThat(Headers.ofPairs(new String[0]).contains("a")).isFalse();
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
