package dev.sluice.core.provider.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PlainCountsTest {

    private static final PlainCounts COUNTS = PlainCounts.of(
            new String[] {"prompt_tokens", "input_tokens"},
            new String[] {"completion_tokens"},
            new String[] {"prompt_tokens_details.cached_tokens"},
            new String[] {"a.b.c"});

    /** What {@link PlainCounts#read} gave, or null when it declined. */
    private static long[] read(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        long[] counts = unread();
        return COUNTS.read(bytes, 0, bytes.length, counts) ? counts : null;
    }

    private static long[] unread() {
        long[] counts = new long[COUNTS.slots()];
        Arrays.fill(counts, -1);
        return counts;
    }

    @Test
    void aWalkedScalarFillsTheSlotOfItsPathWhenItIsACount() {
        long[] counts = unread();
        JsonWalker.walk(
                "{\"input_tokens\":12,\"completion_tokens\":\"x\",\"other\":5,\"a\":{\"b\":{\"c\":7}}}",
                (path, p) -> COUNTS.readScalar(path, p, counts));
        assertThat(counts).containsExactly(12, -1, -1, 7);
    }

    /** What a jackson walk of the object reads, as the tallies did before: null when the walk fails. */
    private static long[] walked(byte[] bytes, int start, int end) {
        long[] counts = unread();
        boolean whole = JsonWalker.walk(bytes, start, end - start, (path, p) -> COUNTS.readScalar(path, p, counts));
        return whole ? counts : null;
    }

    private static long[] walked(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return walked(bytes, 0, bytes.length);
    }

    @Test
    void readsTheProvidersUsageObjects() throws IOException {
        for (String fixture :
                new String[] {"/openai/chat-completion.json", "/openai/response.json", "/anthropic/message.json"}) {
            byte[] answer = resource(fixture);
            long at = TrailingMember.named("usage").findObject(answer, 0, answer.length);
            assertThat(at).as(fixture).isNotNegative();
            int start = (int) (at >>> 32);
            long[] counts = unread();
            assertThat(COUNTS.read(answer, start, (int) at, counts)).as(fixture).isTrue();
            assertThat(counts).as(fixture).isEqualTo(walked(answer, start, (int) at));
            assertThat(counts[0]).as(fixture).isPositive();
        }
    }

    @Test
    void readsCountsNestedAndNamedEitherWayTheLaterWinning() {
        assertThat(read(
                        " {\"prompt_tokens\": 12 ,\n\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":0},"
                                + "\"a\":{\"x\":[1,{\"c\":2}],\"b\":{\"c\":7}},\"input_tokens\":15} "))
                .containsExactly(15, 3, 0, 7);
        assertThat(read("{\"completion_tokens\":1,\"completion_tokens\":2}")).containsExactly(-1, 2, -1, -1);
        assertThat(read("{}")).containsExactly(-1, -1, -1, -1);
        // null is no count, as a walk reads it; what is not read may be anything well-formed
        assertThat(read("{\"prompt_tokens\":null,\"note\":\"\\u00e9\\n\\\"\",\"f\":-1.5e+3,\"t\":[true,false,null,[]],"
                        + "\"a\":{\"b\":{}}}"))
                .containsExactly(-1, -1, -1, -1);
        // a count past what a count may be is no count, as in a walk
        assertThat(read("{\"prompt_tokens\":999999999999999,\"completion_tokens\":0}"))
                .containsExactly(999_999_999_999_999L, 0, -1, -1);
    }

    @Test
    void declinesWhatAWalkReadsItsOwnWay() {
        String[] declined = {
            "{\"prompt_tokens\":12.0}", // a float: truncated by a walk
            "{\"prompt_tokens\":1e3}",
            "{\"prompt_tokens\":\"12\"}", // a numeric string: read by a walk
            "{\"prompt_tokens\":-3}",
            "{\"prompt_tokens\":true}",
            "{\"prompt_tokens\":{\"x\":1}}",
            "{\"prompt_tokens\":[1]}",
            "{\"prompt_tokens\":1234567890123456}", // beyond a double's exact digits
            "{\"prompt_\\u0074okens\":5}", // a name with an escape
            "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{\"i\":{}}}}}}}}}}", // too deep
        };
        for (String json : declined) {
            assertThat(read(json)).as(json).isNull();
        }
    }

    @Test
    void aWordIsReadAsItsIndexAmongTheWordsExpected() {
        PlainCounts tiered =
                PlainCounts.of(new String[] {"input_tokens"}).withWord("service_tier", "standard", "priority", "batch");
        assertThat(tiered.slots()).isEqualTo(2);
        for (Object[] c : new Object[][] {
            {"{\"input_tokens\":3,\"service_tier\":\"priority\"}", 1L},
            {"{\"service_tier\":\"standard\",\"input_tokens\":3}", 0L},
            {"{\"input_tokens\":3,\"service_tier\":\"batch\"}", 2L},
            {"{\"input_tokens\":3,\"service_tier\":\"flex\"}", 3L}, // another word
            {"{\"input_tokens\":3,\"service_tier\":null}", -1L},
            {"{\"input_tokens\":3}", -1L}
        }) {
            byte[] json = ((String) c[0]).getBytes(StandardCharsets.UTF_8);
            long[] counts = {-1, -1};
            assertThat(tiered.read(json, 0, json.length, counts))
                    .as((String) c[0])
                    .isTrue();
            assertThat(counts).as((String) c[0]).containsExactly(3, (Long) c[1]);
        }
        for (String declined : new String[] {
            "{\"service_tier\":7}", "{\"service_tier\":\"pri\\u006fority\"}", "{\"service_tier\":[\"x\"]}"
        }) {
            byte[] json = declined.getBytes(StandardCharsets.UTF_8);
            assertThat(tiered.read(json, 0, json.length, new long[2]))
                    .as(declined)
                    .isFalse();
        }
        assertThat(tiered.slotOf("service_tier")).isEqualTo(1);
        assertThat(tiered.wordIndex("batch")).isEqualTo(2);
        assertThat(tiered.wordIndex("scale")).isEqualTo(3);
        assertThatThrownBy(() -> tiered.withWord("other", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> COUNTS.withWord("w")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void declinesMalformedObjects() {
        String[] malformed = {
            "{\"prompt_tokens\":01}",
            "{\"prompt_tokens\":1,}",
            "{\"prompt_tokens\" 1}",
            "{\"x\":tru}",
            "{\"x\":nul,\"prompt_tokens\":1}",
            "{\"x\":\"\\q\"}",
            "{\"x\":\"\t\"}",
            "{\"x\":\"\\u12G4\"}",
            "{\"x\":[1 2]}",
            "{\"x\":-}",
            "{\"x\":1.}",
            "{\"x\":1e}",
            "{\"x\":1}}",
            "{\"x\":1",
            "[1]",
            "{\"x\":{\"y\":1}",
            "{\"x\"}",
            "{x:1}",
            "",
        };
        for (String json : malformed) {
            assertThat(read(json)).as(json).isNull();
        }
    }

    @Test
    void badArgumentsAreRefusedOrDeclined() {
        assertThatThrownBy(() -> PlainCounts.of()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PlainCounts.of(new String[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PlainCounts.of(new String[] {"a..b"})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PlainCounts.of(new String[] {"a\"b"})).isInstanceOf(IllegalArgumentException.class);
        byte[] json = "{\"prompt_tokens\":1}".getBytes(StandardCharsets.UTF_8);
        assertThat(COUNTS.read(null, 0, 1, unread())).isFalse();
        assertThat(COUNTS.read(json, 0, json.length, new long[1])).isFalse();
        assertThat(COUNTS.read(json, 0, json.length + 1, unread())).isFalse();
        assertThat(COUNTS.read(json, 3, 3, unread())).isFalse();
        assertThat(COUNTS.slotOf("prompt_tokens_details.cached_tokens")).isEqualTo(2);
        assertThat(COUNTS.slotOf("input_tokens")).isZero();
        assertThat(COUNTS.slotOf("cached_tokens")).isEqualTo(-1);
    }

    /**
     * Random objects, well-formed and then cut or with a byte changed: whenever the plain read
     * accepts one, a walk accepts it too and reads the same counts; and a well-formed object of
     * plain counts is always accepted.
     */
    @Test
    void agreesWithAWalkOnRandomObjects() {
        Random random = new Random(7);
        int accepted = 0;
        for (int round = 0; round < 20_000; round++) {
            boolean plain = random.nextBoolean();
            String json = object(random, "", 0, plain);
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            if (round % 3 == 1 && bytes.length > 1) {
                bytes = Arrays.copyOf(bytes, 1 + random.nextInt(bytes.length - 1));
            } else if (round % 3 == 2) {
                bytes[random.nextInt(bytes.length)] = (byte) MUTATIONS.charAt(random.nextInt(MUTATIONS.length()));
            }
            long[] counts = unread();
            boolean read = COUNTS.read(bytes, 0, bytes.length, counts);
            String shown = new String(bytes, StandardCharsets.UTF_8);
            if (read) {
                accepted++;
                assertThat(counts).as(shown).isEqualTo(walked(bytes, 0, bytes.length));
            } else if (round % 3 == 0 && plain) {
                assertThat(read).as("a plain object declined: %s", shown).isTrue();
            }
        }
        assertThat(accepted).isGreaterThan(7_000);
    }

    /** Bytes a mutated object gets one of: JSON's structure, a number's, an escape's, a control char. */
    private static final String MUTATIONS = "{}[]\",:0-.e tn\\9a\u0001";

    private static final String[] NAMES = {
        "prompt_tokens", "input_tokens", "completion_tokens", "prompt_tokens_details", "a", "b", "c", "x"
    };

    /** A random object at {@code path}, {@code depth} containers in; when {@code plain}, every value at a path read is a plain count or null. */
    private static String object(Random random, String path, int depth, boolean plain) {
        StringBuilder json = new StringBuilder(random.nextBoolean() ? "{" : " { ");
        int members = depth >= 3 ? 0 : random.nextInt(5);
        for (int m = 0; m < members; m++) {
            if (m > 0) {
                json.append(random.nextBoolean() ? "," : " ,\n ");
            }
            String name = NAMES[random.nextInt(NAMES.length)];
            String member = path.isEmpty() ? name : path + "." + name;
            json.append('"').append(name).append("\":");
            json.append(plain && COUNTS.slotOf(member) >= 0 ? count(random) : value(random, member, depth, plain));
        }
        return json.append('}').toString();
    }

    private static String count(Random random) {
        return random.nextInt(5) == 0 ? "null" : String.valueOf(random.nextInt(100_000));
    }

    private static String value(Random random, String path, int depth, boolean plain) {
        switch (random.nextInt(plain ? 7 : 11)) {
            case 0:
                return count(random);
            case 1:
            case 2:
                return object(random, path, depth + 1, plain);
            case 3:
                return "[" + random.nextInt(9) + "," + object(random, path + "[]", depth + 2, false) + "]";
            case 4:
                return "\"x\\\"y\\u00e9\"";
            case 5:
                return "[]";
            case 6:
                return random.nextBoolean() ? "true" : "-7";
            case 7:
                return "12.5";
            case 8:
                return "\"40\"";
            case 9:
                return "0";
            default:
                return "1e2";
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = PlainCountsTest.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
