package dev.sluice.core.provider.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TrailingMemberTest {

    static final TrailingMember USAGE = TrailingMember.named("usage");

    /** The found object's text, or null. */
    static String found(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        long at = USAGE.findObject(bytes, 0, bytes.length);
        return at < 0
                ? null
                : new String(bytes, (int) (at >>> 32), (int) at - (int) (at >>> 32), StandardCharsets.UTF_8);
    }

    static String fixture(String name) {
        try (InputStream in = TrailingMemberTest.class.getResourceAsStream("/openai/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void findsUsageFollowedByScalarsAndEmptyContainersInTheProvidersAnswers() {
        assertThat(found(fixture("chat-completion.json")))
                .startsWith("{")
                .endsWith("}")
                .contains("\"prompt_tokens\": 1117")
                .contains("\"rejected_prediction_tokens\": 0");
        assertThat(found(fixture("response.json")))
                .contains("\"input_tokens\": 37"); // then "user": null, "metadata": {}
        assertThat(found(fixture("embeddings.json"))).isEqualTo("{\"prompt_tokens\": 8, \"total_tokens\": 8}");
        assertThat(found("{\"usage\":{}}")).isEqualTo("{}");
        assertThat(
                        found(
                                " {\"a\":[1,{\"b\":2}],\r\n\t\"usage\" :\n{\"x\":1} ,\"t\":[ ],\"u\":-1.5E+3, \"v\":true,\"w\":\"}\\\"\"}\n"))
                .isEqualTo("{\"x\":1}");
    }

    @Test
    void aUsageThatIsNotTheRootsOwnIsNotFound() {
        assertThat(found("{\"a\":{\"usage\":{\"x\":1}}}")).isNull();
        assertThat(found("{\"choices\":[{\"usage\":{\"x\":1}}]}")).isNull();
        assertThat(found("{\"a\":{\"b\":1,\"usage\":{\"x\":1},\"c\":2}}")).isNull();
        // inside a string every quote is escaped
        assertThat(found("{\"content\":\"say ,\\\"usage\\\": {\\\"x\\\": 1}\"}"))
                .isNull();
        assertThat(found("{\"content\":\"{\\\"usage\\\":{}}\"}")).isNull();
        // malformed: the quote closing a string ("x\\") is not a key's opening one
        assertThat(found("{\"a\":\"x\\\\\"usage\":{\"x\":1}}")).isNull();
    }

    @Test
    void aUsageFollowedByAnythingButScalarsIsLeftToTheWholeWalk() {
        assertThat(found("{\"usage\":{\"x\":1},\"metadata\":{\"a\":1}}")).isNull();
        assertThat(found("{\"usage\":{\"x\":1},\"list\":[1]}")).isNull();
        assertThat(found("{\"usage\":[1,2]}")).isNull();
        assertThat(found("{\"usage\":null}")).isNull();
        assertThat(found("[{\"usage\":{\"x\":1}}]")).isNull();
        assertThat(found("{\"usage\":{\"x\":1}")).isNull(); // the root never closes
        assertThat(found("{\"usage\":{\"x\":1},}")).isNull();
        assertThat(found("{\"usage\":{\"x\":1} \"y\":2}")).isNull();
        assertThat(found("{\"usage\":{\"x\":1},\"y\":\"unterminated}")).isNull();
    }

    /**
     * The object is found by its brackets, strings passed over; what is inside is read by the
     * caller's walk, which fails on a malformed one (then the whole answer is walked).
     */
    @Test
    void theObjectIsFoundByItsBracketsAndAMalformedOneFailsTheWalkThatReadsIt() {
        assertThat(found("{\"usage\":{\"note\":\"}{][\\\"\",\"x\":{\"y\":[1,{}]}}}"))
                .isEqualTo("{\"note\":\"}{][\\\"\",\"x\":{\"y\":[1,{}]}}");
        assertThat(found("{\"usage\":{\"x\":[1}}"))
                .isNull(); // a bracket left open: no brace closes it before the root's
        assertThat(found("{\"usage\":{\"x\":\"unterminated}}")).isNull();
        String malformed = "{\"usage\":{\"x\":tru}}";
        assertThat(found(malformed)).isEqualTo("{\"x\":tru}");
        byte[] bytes = malformed.getBytes(StandardCharsets.UTF_8);
        BoundedBody body = new BoundedBody(1 << 16, bytes.length);
        body.append(bytes, 0, bytes.length);
        assertThat(body.readTrailingObject(USAGE, PlainCounts.of(new String[] {"x"}), new long[] {-1}, (path, p) -> {}))
                .isFalse(); // declined by the plain read, then refused by the walk
    }

    @Test
    void theNameAsAValueAfterTheMemberIsSkippedAndTheLaterOfTwoMembersWins() {
        assertThat(found("{\"usage\":{\"x\":1},\"kind\":\"usage\"}")).isEqualTo("{\"x\":1}");
        assertThat(found("{\"usage\":{\"x\":1},\"usage\":{\"x\":2}}")).isEqualTo("{\"x\":2}");
    }

    @Test
    void aPlainNameIsRequired() {
        assertThatThrownBy(() -> TrailingMember.named("a\"b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TrailingMember.named("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badInputFindsNothingAndNeverThrows() {
        assertThat(USAGE.findObject(null, 0, 1)).isEqualTo(-1);
        assertThat(USAGE.findObject(new byte[4], 3, 2)).isEqualTo(-1);
        assertThat(USAGE.findObject(new byte[4], -1, 2)).isEqualTo(-1);
        assertThat(USAGE.findObject(new byte[0], 0, 0)).isEqualTo(-1);
        Random random = new Random(11);
        byte[] chat = fixture("chat-completion.json").getBytes(StandardCharsets.UTF_8);
        for (int round = 0; round < 2_000; round++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            if (junk.length > 0) {
                USAGE.findObject(junk, 0, junk.length);
            }
            int cut = 1 + random.nextInt(chat.length);
            long at = USAGE.findObject(chat, 0, cut);
            // a cut document either ends inside usage or after it: only the whole one ends with the root's brace
            assertThat(at).as("cut at %d", cut).isEqualTo(cut == chat.length ? foundInWhole(chat) : -1);
        }
    }

    private static long foundInWhole(byte[] chat) {
        return USAGE.findObject(chat, 0, chat.length);
    }

    /**
     * Random documents, usage anywhere (at the root, nested, inside strings, followed by scalars or
     * by containers): whenever a usage is found, it is the one a walk of the whole document
     * reports at the root; and one at the root followed by scalars only is always found.
     */
    @Test
    void agreesWithAWalkOfTheWholeDocument() {
        Random random = new Random(42);
        int foundCount = 0;
        for (int round = 0; round < 3_000; round++) {
            StringBuilder doc = new StringBuilder("{");
            doc.append("\"id\":\"c-").append(round).append("\",\"choices\":").append(value(random, 3));
            boolean rootUsage = random.nextInt(4) > 0;
            boolean onlyScalarsAfter = random.nextBoolean();
            if (rootUsage) {
                doc.append(",\"usage\":{\"prompt_tokens\":")
                        .append(random.nextInt(1000))
                        .append(",\"details\":{\"cached_tokens\":")
                        .append(random.nextInt(9))
                        .append("}}");
            }
            int after = random.nextInt(4);
            for (int i = 0; i < after; i++) {
                doc.append(",\"k").append(i).append("\":");
                doc.append(onlyScalarsAfter ? scalar(random) : value(random, 2));
            }
            doc.append('}');
            String json = doc.toString();
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            long at = USAGE.findObject(bytes, 0, bytes.length);
            Map<String, String> whole = new LinkedHashMap<>();
            JsonWalker.walk(json, (path, p) -> {
                if (path.startsWith("usage.")) {
                    whole.put(path.substring(6), p.getText());
                }
            });
            if (at >= 0) {
                foundCount++;
                Map<String, String> fast = new LinkedHashMap<>();
                int start = (int) (at >>> 32);
                JsonWalker.walk(bytes, start, (int) at - start, (path, p) -> fast.put(path, p.getText()));
                assertThat(fast).as(json).isEqualTo(whole);
            } else {
                assertThat(rootUsage && onlyScalarsAfter).as(json).isFalse();
            }
        }
        assertThat(foundCount).isGreaterThan(500);
    }

    private static String scalar(Random random) {
        switch (random.nextInt(7)) {
            case 0:
                return "null";
            case 1:
                return random.nextBoolean() ? "true" : "false";
            case 2:
                return String.valueOf(random.nextInt(2000) - 1000);
            case 3:
                return "1.5e-3";
            case 4:
                return random.nextBoolean() ? "{}" : "[ ]";
            case 5:
                return "\"say \\\"usage\\\": {\\\"prompt_tokens\\\": 1} }\"";
            default:
                return "\"fp_" + random.nextInt(99) + "\"";
        }
    }

    private static String value(Random random, int depth) {
        if (depth == 0 || random.nextInt(3) == 0) {
            return scalar(random);
        }
        StringBuilder v = new StringBuilder();
        if (random.nextBoolean()) {
            v.append('[');
            int n = random.nextInt(3);
            for (int i = 0; i < n; i++) {
                v.append(i == 0 ? "" : ",").append(value(random, depth - 1));
            }
            return v.append(']').toString();
        }
        v.append('{');
        int n = random.nextInt(3);
        for (int i = 0; i < n; i++) {
            v.append(i == 0 ? "" : ",")
                    .append(random.nextInt(4) == 0 ? "\"usage\"" : "\"f" + i + "\"")
                    .append(':')
                    .append(random.nextInt(3) == 0 ? "{\"prompt_tokens\":-7}" : value(random, depth - 1));
        }
        return v.append('}').toString();
    }
}
