package dev.sluice.core.provider.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonWalkerTest {

    static final String CHAT =
            "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}],"
                    + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],\"max_tokens\":100,\"stream\":true,"
                    + "\"usage\":{\"prompt_tokens\":12.0,\"completion_tokens\":\"7\"},\"n\":null}";

    static Map<String, String> scalars(String json) {
        Map<String, String> seen = new LinkedHashMap<>();
        JsonWalker.walk(json, (path, p) -> seen.put(path, p.getText()));
        return seen;
    }

    @Test
    void namesEveryScalarByItsPath() {
        assertThat(scalars(CHAT))
                .containsEntry("model", "gpt-4o-mini")
                .containsEntry("messages[].role", "user")
                .containsEntry("messages[].content[].text", "Hi")
                .containsEntry("tools[].function.name", "f")
                .containsEntry("max_tokens", "100")
                .containsEntry("usage.prompt_tokens", "12.0")
                .containsEntry("n", "null");
        assertThat(scalars("[{\"error\":{\"code\":429}}]")).containsEntry("[].error.code", "429");
        assertThat(scalars("42")).containsEntry("", "42");
        assertThat(scalars("{\"a\":[[1,2],[3]]}")).containsEntry("a[][]", "3");
    }

    @Test
    void aReusedWalkerSeesEachDocumentAsAFreshOneWould() {
        String deep = "{\"a\":" + "[".repeat(40) + "{\"b\":1}" + "]".repeat(40) + "}";
        String[] documents = {CHAT, deep, "{\"broken\":[1,", CHAT, "[{\"error\":{\"code\":429}}]", deep, "42"};
        JsonWalker reused = new JsonWalker();
        for (String doc : documents) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            Map<String, String> fresh = new LinkedHashMap<>();
            Map<String, String> again = new LinkedHashMap<>();
            boolean freshComplete = JsonWalker.walk(bytes, 0, bytes.length, (path, p) -> fresh.put(path, p.getText()));
            boolean againComplete = reused.walkNext(bytes, 0, bytes.length, (path, p) -> again.put(path, p.getText()));
            assertThat(again).as(doc).isEqualTo(fresh);
            assertThat(againComplete).as(doc).isEqualTo(freshComplete);
        }
        assertThat(scalars(deep)).containsEntry("a" + "[]".repeat(40) + ".b", "1");
    }

    @Test
    void aDocumentSeenBeforeIsWalkedWithThePathsMadeTheFirstTime() {
        byte[] chunk = ("{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{\"content\":\" hi\"},\"finish_reason\":null}],\"usage\":null}")
                .getBytes(StandardCharsets.UTF_8);
        List<String> first = new ArrayList<>();
        List<String> second = new ArrayList<>();
        JsonWalker walker = new JsonWalker();
        walker.walkNext(chunk, 0, chunk.length, (path, p) -> first.add(path));
        walker.walkNext(chunk, 0, chunk.length, (path, p) -> second.add(path));

        assertThat(first).contains("choices[].delta.content").hasSameSizeAs(second);
        for (int i = 0; i < first.size(); i++) {
            assertThat(second.get(i)).as(first.get(i)).isSameAs(first.get(i));
        }
    }

    @Test
    void skippedContainersReportTheirLength() {
        List<Long> lengths = new ArrayList<>();
        boolean complete = JsonWalker.walk(CHAT.getBytes(StandardCharsets.UTF_8), new JsonVisitor() {
            @Override
            public void scalar(String path, JsonParser value) {}

            @Override
            public boolean enter(String path) {
                return !path.equals("tools");
            }

            @Override
            public void skipped(String path, long length) {
                lengths.add(length);
            }
        });
        assertThat(complete).isTrue();
        assertThat(lengths).containsExactly((long) "[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]".length());
    }

    @Test
    void countsAreReadDefensively() {
        Map<String, Long> counts = new LinkedHashMap<>();
        JsonWalker.walk(
                "{\"a\":12,\"b\":12.9,\"c\":\"7\",\"d\":-3,\"e\":null,\"f\":true,\"g\":\"x\",\"h\":1e30}",
                (path, p) -> counts.put(path, JsonScalars.count(p)));
        assertThat(counts)
                .containsExactly(
                        Map.entry("a", 12L),
                        Map.entry("b", 12L),
                        Map.entry("c", 7L),
                        Map.entry("d", -1L),
                        Map.entry("e", -1L),
                        Map.entry("f", -1L),
                        Map.entry("g", -1L),
                        Map.entry("h", -1L));
    }

    @Test
    void truncatedInputKeepsWhatCameBefore() {
        String cut = CHAT.substring(0, CHAT.indexOf("\"tools\""));
        Map<String, String> seen = new LinkedHashMap<>();
        boolean complete = JsonWalker.walk(cut, (path, p) -> seen.put(path, p.getText()));
        assertThat(complete).isFalse();
        assertThat(seen).containsEntry("model", "gpt-4o-mini");
    }

    @Test
    void pickReadsCodesAsStringsOrNumbers() {
        assertThat(JsonFields.pick(
                        "{\"error\":{\"code\":429,\"message\":\"m\",\"param\":null}}",
                        "error.code",
                        "error.message",
                        "error.param",
                        "error.type"))
                .containsOnly(Map.entry("error.code", "429"), Map.entry("error.message", "m"));
        assertThat(JsonFields.pick("{\"error\":{\"code\":\"429\"}}".getBytes(StandardCharsets.UTF_8), "error.code"))
                .containsEntry("error.code", "429");
    }

    @Test
    void malformedInputNeverThrows() {
        JsonVisitor throwing = new JsonVisitor() {
            @Override
            public void scalar(String path, JsonParser value) throws IOException {
                throw new IOException("visitor fault");
            }
        };
        assertThat(JsonWalker.walk("{\"a\":1}", throwing)).isFalse();
        assertThat(JsonWalker.walk((String) null, (p, v) -> {})).isFalse();
        assertThat(JsonWalker.walk(new byte[3], 2, 5, (p, v) -> {})).isFalse();
        assertThat(JsonWalker.walk("[".repeat(100_000), (p, v) -> {})).isFalse();
        assertThat(JsonFields.pick("{{{{", "a")).isEmpty();
        Random random = new Random(3);
        for (int i = 0; i < 2000; i++) {
            byte[] junk = new byte[random.nextInt(200)];
            random.nextBytes(junk);
            if (junk.length > 0) {
                junk[0] = '{';
            }
            JsonWalker.walk(junk, (p, v) -> JsonScalars.count(v));
        }
    }

    @Test
    void boundedBodyGivesUpPastItsCap() {
        BoundedBody body = new BoundedBody(16);
        byte[] json = "{\"usage\":{\"prompt_tokens\":5}}".getBytes(StandardCharsets.UTF_8);
        body.append(json, 0, 10);
        assertThat(body.overflowed()).isFalse();
        body.append(json, 10, json.length - 10);
        assertThat(body.overflowed()).isTrue();
        assertThat(body.bytesSeen()).isEqualTo(json.length);
        assertThat(body.walk((p, v) -> {})).isFalse();

        BoundedBody fits = new BoundedBody();
        for (byte b : json) {
            fits.append(new byte[] {b}, 0, 1);
        }
        Map<String, String> seen = new LinkedHashMap<>();
        assertThat(fits.walk((path, p) -> seen.put(path, p.getText()))).isTrue();
        assertThat(seen).containsEntry("usage.prompt_tokens", "5");
    }

    @Test
    void boundedBodyTakesTheAnnouncedLengthAsAHintOnly() {
        byte[] json = "{\"usage\":{\"prompt_tokens\":5},\"pad\":\"0123456789\"}".getBytes(StandardCharsets.UTF_8);
        for (long announced : new long[] {-1, 0, 5, json.length, json.length * 3L, 1 << 20}) {
            BoundedBody body = new BoundedBody(64, announced);
            body.append(json, 0, 7);
            body.append(json, 7, json.length - 7);
            Map<String, String> seen = new LinkedHashMap<>();
            assertThat(body.walk((path, p) -> seen.put(path, p.getText())))
                    .as("announced %d", announced)
                    .isTrue();
            assertThat(seen).containsEntry("usage.prompt_tokens", "5");
            assertThat(body.bytesSeen()).isEqualTo(json.length);
        }
        // the announced length within the cap is the one array the body is collected in
        BoundedBody exact = new BoundedBody(64, json.length);
        exact.append(json, 0, json.length);
        assertThat(exact.heldCapacity()).isEqualTo(json.length);
        // beyond the cap it is not believed: nothing is held before the body comes
        BoundedBody tooLong = new BoundedBody(64, 1 << 20);
        assertThat(tooLong.heldCapacity()).isZero();
        // unknown: a first chunk over 1 KB that is the whole body is its one array
        byte[] large = new byte[3000];
        java.util.Arrays.fill(large, (byte) ' ');
        large[0] = '{';
        large[large.length - 1] = '}';
        BoundedBody unknown = new BoundedBody(1 << 20, -1);
        unknown.append(large, 0, large.length);
        assertThat(unknown.heldCapacity()).isEqualTo(large.length);
        assertThat(unknown.walk((path, p) -> {})).isTrue();
        BoundedBody small = new BoundedBody(1 << 20, -1);
        small.append(json, 0, json.length);
        assertThat(small.heldCapacity()).isEqualTo(1024);
    }

    @Test
    void aBodysFirstBytesGivenForGoodAreKeptNotCopied() {
        byte[] json = "{\"usage\":{\"prompt_tokens\":5}}".getBytes(StandardCharsets.UTF_8);
        byte[] given = java.util.Arrays.copyOf(json, json.length + 10); // spare room, as a byte stream keeps
        BoundedBody adopted = new BoundedBody(1 << 20, json.length + 40);
        adopted.adopt(given, 12);
        assertThat(adopted.heldCapacity()).isEqualTo(given.length); // the array itself, not one of the announced length
        adopted.append(json, 12, json.length - 12); // the rest, into its spare room
        assertThat(adopted.bytesSeen()).isEqualTo(json.length);
        Map<String, String> seen = new LinkedHashMap<>();
        assertThat(adopted.walk((path, p) -> seen.put(path, p.getText()))).isTrue();
        assertThat(seen).containsEntry("usage.prompt_tokens", "5");

        // after an append, or beyond the cap, the bytes are taken as any others
        BoundedBody appended = new BoundedBody(1 << 20, -1);
        appended.append(json, 0, 1);
        appended.adopt(java.util.Arrays.copyOfRange(json, 1, json.length), json.length - 1);
        assertThat(appended.heldCapacity()).isEqualTo(1024);
        assertThat(appended.walk((path, p) -> {})).isTrue();
        BoundedBody tooLarge = new BoundedBody(8, -1);
        tooLarge.adopt(json, json.length);
        assertThat(tooLarge.overflowed()).isTrue();
        assertThat(tooLarge.bytesSeen()).isEqualTo(json.length);
    }

    /**
     * Pieces of random string text as JSON carries it: plain ASCII, short and in runs long enough
     * to be read eight bytes at a time, escapes, 2-, 3- and 4-byte characters.
     */
    private static final String[] STRING_PIECES = {
        "a",
        " ",
        "the quick brown fox jumps ",
        "\\\"",
        "\\\\",
        "\\n",
        "\\u0041",
        "\u00e9",
        "\u20ac",
        "\ud83d\ude00",
        "\\ud83d\\ude00"
    };

    /** Every string's length as the walker's parser counts it (from the input) and as jackson decodes it. */
    static List<int[]> lengths(Object json) {
        List<int[]> out = new ArrayList<>();
        JsonVisitor v = (path, p) -> {
            if (p.currentToken() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING) {
                int counted = p.getTextLength(); // before anything decodes the string
                out.add(new int[] {counted, p.getText().length()});
            }
        };
        if (json instanceof String) {
            JsonWalker.walk((String) json, v);
        } else {
            byte[] b = (byte[]) json;
            byte[] padded = new byte[b.length + 6]; // at an offset, as bodies are read from buffers
            System.arraycopy(b, 0, padded, 3, b.length);
            JsonWalker.walk(padded, 3, b.length, v);
        }
        return out;
    }

    @Test
    void countsStringLengthsFromTheInputAsJacksonWould() {
        String json = "{\"a\":\"plain\",\"b\":\"\",\"c\":\"esc \\\" \\\\ \\n \\u00e9 \\ud83d\\ude00\","
                + "\"d\":[\"h\u00e9 \u20ac \ud83d\ude00 \u4e2d\", 12, \"x\"], \"e\" : { \"f\" :\"\\/\\t\"}}";
        List<int[]> fromBytes = lengths(json.getBytes(StandardCharsets.UTF_8));
        List<int[]> fromChars = lengths(json);
        assertThat(fromBytes).hasSize(6);
        assertThat(fromChars).hasSize(6);
        for (List<int[]> each : List.of(fromBytes, fromChars)) {
            for (int[] pair : each) {
                assertThat(pair[0]).isEqualTo(pair[1]);
            }
        }
        // long plain runs, read eight bytes at a time, with one special character at every position
        for (String special :
                new String[] {"\\\"", "\\\\", "\\u20ac", "\u00e9", "\u20ac", "\ud83d\ude00", "~", "\u007f"}) {
            for (int before = 0; before < 20; before++) {
                String text = "a".repeat(before) + special + "b".repeat(23 - before);
                String doc = "{\"input\":\"" + text + "\"}";
                for (List<int[]> each : List.of(lengths(doc), lengths(doc.getBytes(StandardCharsets.UTF_8)))) {
                    assertThat(each).hasSize(1);
                    assertThat(each.get(0)[0]).as(doc).isEqualTo(each.get(0)[1]);
                }
            }
        }
        Random random = new Random(7);
        String[] pieces = STRING_PIECES;
        for (int run = 0; run < 400; run++) {
            StringBuilder doc = new StringBuilder("{\"messages\":[");
            for (int m = 0; m < 3; m++) {
                doc.append(m > 0 ? "," : "").append("{\"content\":\"");
                int n = random.nextInt(40);
                for (int k = 0; k < n; k++) {
                    doc.append(pieces[random.nextInt(pieces.length)]);
                }
                doc.append("\"}");
            }
            doc.append("]}");
            for (List<int[]> each :
                    List.of(lengths(doc.toString()), lengths(doc.toString().getBytes(StandardCharsets.UTF_8)))) {
                assertThat(each).hasSize(3);
                for (int[] pair : each) {
                    assertThat(pair[0]).as(doc.toString()).isEqualTo(pair[1]);
                }
            }
        }
    }

    /**
     * What a walk over bytes sees when visitors only count strings (so the parser moves past each
     * from where its count ended) against a walk over the same text where every string is decoded:
     * the same values at the same paths, and the same containers skipped with the same sizes.
     */
    @Test
    void aStringCountedIsPassedWithoutChangingWhatFollows() {
        Random random = new Random(11);
        String[] pieces = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(STRING_PIECES), java.util.stream.Stream.of("}", "]", ","))
                .toArray(String[]::new);
        for (int run = 0; run < 300; run++) {
            StringBuilder doc = new StringBuilder("{\"model\":\"m\",\"messages\":[");
            long skippedBytes = 0;
            int messages = 1 + random.nextInt(4);
            for (int m = 0; m < messages; m++) {
                doc.append(m > 0 ? "," : "").append("{\"role\":\"user\",\"content\":");
                if (random.nextBoolean()) {
                    doc.append('"').append(text(random, pieces)).append('"');
                } else {
                    doc.append("[{\"type\":\"text\",\"text\":\"")
                            .append(text(random, pieces))
                            .append("\"},\"")
                            .append(text(random, pieces))
                            .append("\",")
                            .append(random.nextInt(1000))
                            .append(']');
                }
                String skip = "{\"x\":\"" + text(random, pieces) + "\",\"y\":[1,\"z\"]}";
                skippedBytes += skip.getBytes(StandardCharsets.UTF_8).length;
                doc.append(",\"skip\":").append(skip);
                doc.append('}');
            }
            doc.append("],\"max_tokens\":").append(random.nextInt(5000)).append(",\"stream\":true}");
            String json = doc.toString();
            byte[] padded = new byte[json.getBytes(StandardCharsets.UTF_8).length + 4];
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(bytes, 0, padded, 2, bytes.length);
            List<String> counted = new ArrayList<>();
            long[] skippedSeen = {0};
            assertThat(JsonWalker.walk(padded, 2, bytes.length, recorder(counted, false, skippedSeen)))
                    .as(json)
                    .isTrue();
            List<String> decoded = new ArrayList<>();
            assertThat(JsonWalker.walk(json, recorder(decoded, true, new long[1])))
                    .as(json)
                    .isTrue();
            assertThat(counted).as(json).isEqualTo(decoded);
            assertThat(skippedSeen[0]).as(json).isEqualTo(skippedBytes);
        }
    }

    private static String text(Random random, String[] pieces) {
        StringBuilder b = new StringBuilder();
        int n = random.nextInt(30);
        for (int k = 0; k < n; k++) {
            b.append(pieces[random.nextInt(pieces.length)]);
        }
        return b.toString();
    }

    /** Records each value by path (a string by its length) and each container skipped (adding its length); skips every {@code skip}. */
    private static JsonVisitor recorder(List<String> out, boolean decode, long[] skippedLength) {
        return new JsonVisitor() {
            @Override
            public boolean enter(String path) {
                return !path.endsWith("skip");
            }

            @Override
            public void skipped(String path, long length) {
                out.add(path + " skipped");
                skippedLength[0] += length;
            }

            @Override
            public void scalar(String path, com.fasterxml.jackson.core.JsonParser p) throws java.io.IOException {
                if (p.currentToken() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING) {
                    out.add(path + " chars " + (decode ? p.getText().length() : p.getTextLength()));
                } else {
                    out.add(path + " = " + p.getText());
                }
            }
        };
    }
}
