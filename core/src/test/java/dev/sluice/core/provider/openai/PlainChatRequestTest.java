package dev.sluice.core.provider.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PlainChatRequestTest {

    /** Every field a read gives, in one value to compare. */
    private static List<Object> facts(OpenAiRequestBody body) {
        return Arrays.asList(
                body.model(),
                body.serviceTier(),
                body.maxOutputTokens(),
                body.stream(),
                body.includeUsage(),
                body.promptCharacters(),
                body.parts(),
                body.tokenIds());
    }

    /** What the plain read gave, or null when it declined. */
    private static List<Object> plain(byte[] json) {
        OpenAiRequestBody read = new OpenAiRequestBody();
        return PlainChatRequest.read(json, json.length, read) ? facts(read) : null;
    }

    private static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static final String PROMPT = "Résume le rapport trimestriel, s'il te plaît \uD83D\uDE00 \u4e2d\u6587 "
            + "with \\\"quotes\\\", a tab\\t and \\u00e9 escaped, "
            + "x".repeat(300);

    @Test
    void readsChatRequestsAsTheWalkDoes() {
        String[] bodies = {
            // openai-java's chat body
            "{\"messages\":[{\"content\":\"Say hi\",\"role\":\"user\"}],\"model\":\"gpt-4o-mini\",\"max_completion_tokens\":360}",
            // a streamed chat with a system message, content parts, a tool call and its answer, a tool definition
            "{\"messages\":[{\"role\":\"system\",\"content\":\"Be terse.\"},{\"role\":\"user\",\"name\":\"ana\",\"content\":"
                    + "[{\"type\":\"text\",\"text\":\"" + PROMPT + "\"},{\"type\":\"image_url\",\"image_url\":{\"url\":"
                    + "\"data:image/png;base64,iVBORw0KGgo=\"}}]},{\"role\":\"assistant\",\"content\":null,\"refusal\":"
                    + "\"no\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"weather\","
                    + "\"arguments\":\"{\\\"city\\\":\\\"Lyon\\\"}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\","
                    + "\"content\":\"14 \u00b0C\"}],\"model\":\"gpt-4o\",\"stream\":true,\"stream_options\":"
                    + "{\"include_usage\":true},\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"weather\","
                    + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}],"
                    + "\"temperature\":0.2,\"max_tokens\":512,\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
                    + "{\"name\":\"w\",\"schema\":{\"type\":\"object\"}}},\"logit_bias\":{\"50256\":-100}}",
            // legacy functions and function_call, whitespace everywhere, duplicate members (the later wins, caps the
            // largest)
            " {\n  \"model\" : \"a\" , \"model\":\"gpt-3.5-turbo\", \"functions\" : [ {\"name\":\"f\"} , [1] , 3 ],\n"
                    + " \"messages\" : [ {\"role\":\"assistant\",\"function_call\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
                    + " [\"odd\"], \"odder\", null ], \"max_tokens\":9, \"max_completion_tokens\":7, \"stream\":false,"
                    + " \"stream\":null, \"stream_options\":{\"include_usage\":\"yes\"} }\t",
            // caps that are no count, and one past the largest count
            "{\"model\":\"m\",\"max_tokens\":null,\"max_output_tokens\":true,\"messages\":[]}",
            "{\"model\":\"m\",\"max_tokens\":999999999999999,\"messages\":[{\"content\":[\"a\",{\"text\":7},{\"text\":{\"x\":\"y\"}}]}]}",
            // things the walk counts nothing for: content of other kinds, tool calls of other shapes
            "{\"messages\":[{\"content\":{\"text\":\"no\"},\"name\":[\"no\"],\"tool_calls\":{\"function\":{\"name\":\"no\"}}},"
                    + "{\"tool_calls\":[{\"function\":[{\"name\":\"no\"}]},7],\"function_call\":\"no\"}],"
                    + "\"tools\":{\"a\":[1]},\"stream_options\":[true],\"response_format\":\"auto\"}",
            "{}",
            "{\"model\":\"m\"} trailing text is ignored, as by the walk",
            // the service tier asked for: what the call is priced at
            "{\"model\":\"gpt-5.4\",\"service_tier\":\"flex\",\"messages\":[]}",
            "{\"service_tier\":null,\"model\":\"gpt-5.4\",\"service_tier\":\"priority\"}",
            "{\"model\":\"gpt-5.4\",\"service_tier\":\"auto\",\"service_tier\":null}",
            // a raw control char in a string the walk only weighs: taken as a char, as the walk takes it
            "{\"messages\":[{\"content\":\"a\tb\u0001\"}]}",
        };
        for (String body : bodies) {
            byte[] json = utf8(body);
            assertThat(plain(json)).as(body).isNotNull().isEqualTo(facts(OpenAiRequestBody.walked(json)));
            assertThat(facts(OpenAiRequestBody.read(json))).as(body).isEqualTo(facts(OpenAiRequestBody.walked(json)));
        }
        // what the second body weighs, worked out by hand: the prompt's chars as the model reads them
        OpenAiRequestBody streamed = OpenAiRequestBody.read(utf8(bodies[1]));
        assertThat(streamed.stream()).isTrue();
        assertThat(streamed.includeUsage()).isTrue();
        assertThat(streamed.maxOutputTokens()).isEqualTo(512);
        assertThat(streamed.parts()).isEqualTo(5); // four messages, one tool
    }

    @Test
    void readsOnlyTheLengthGivenOfALongerArray() {
        // a transport's reused buffer: the body, then what an earlier, longer body left there
        String[] bodies = {
            "{\"messages\":[{\"content\":\"" + PROMPT
                    + "\",\"role\":\"user\"}],\"model\":\"gpt-4o-mini\",\"max_tokens\":9}",
            "{\"model\":\"m\",\"stream\":true,\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],\"messages\":[]}",
            "{\"model\":\"m\",\"input\":\"a Responses body, walked\"}",
        };
        byte[] leftOver = utf8(",\"max_tokens\":777,\"messages\":[{\"content\":\"left over\"}]}\u0000\u00ff");
        for (String body : bodies) {
            byte[] exact = utf8(body);
            // every prefix too: a length that ends inside the body reads as that cut body does
            int step = Math.max(1, exact.length / 97);
            int[] lengths = java.util.stream.IntStream.concat(
                            java.util.stream.IntStream.range(0, exact.length).filter(n -> n % step == 0),
                            java.util.stream.IntStream.of(exact.length))
                    .toArray();
            for (int length : lengths) {
                byte[] cut = java.util.Arrays.copyOf(exact, length);
                byte[] longer = java.util.Arrays.copyOf(cut, length + leftOver.length);
                System.arraycopy(leftOver, 0, longer, length, leftOver.length);
                OpenAiRequestBody plain = new OpenAiRequestBody();
                OpenAiRequestBody plainOfCut = new OpenAiRequestBody();
                boolean read = PlainChatRequest.read(longer, length, plain);
                assertThat(read).as("%s at %d", body, length).isEqualTo(PlainChatRequest.read(cut, length, plainOfCut));
                if (read) {
                    assertThat(facts(plain)).isEqualTo(facts(plainOfCut));
                }
                assertThat(facts(OpenAiRequestBody.read(longer, length)))
                        .as("%s at %d", body, length)
                        .isEqualTo(facts(OpenAiRequestBody.read(cut)));
            }
        }
    }

    @Test
    void countsTheCharsTheModelReads() {
        // an escape is one char, a character outside the BMP two (a surrogate pair), as decoded
        String text = "é中\uD83D\uDE00\\n\\u00e9\\\"";
        OpenAiRequestBody read = OpenAiRequestBody.read(utf8("{\"messages\":[{\"content\":\"" + text + "\"}]}"));
        assertThat(read.promptCharacters()).isEqualTo("é中\uD83D\uDE00\né\"".length());
        assertThat(read.parts()).isEqualTo(1);
    }

    @Test
    void theSameModelComesBackAsTheSameString() {
        OpenAiRequestBody first = OpenAiRequestBody.read(utf8("{\"model\":\"gpt-4o-mini\",\"messages\":[]}"));
        OpenAiRequestBody again = OpenAiRequestBody.read(utf8("{\"messages\":[],\"model\":\"gpt-4o-mini\"}"));
        OpenAiRequestBody other = OpenAiRequestBody.read(utf8("{\"model\":\"gpt-4o-nano\"}"));
        assertThat(again.model()).isEqualTo("gpt-4o-mini").isSameAs(first.model());
        assertThat(other.model()).isEqualTo("gpt-4o-nano");
        assertThat(OpenAiRequestBody.read(utf8("{\"model\":\"gpt-4o-min\"}")).model())
                .isEqualTo("gpt-4o-min");
    }

    @Test
    void declinesWhatTheWalkReadsItsOwnWay() {
        String[] declined = {
            "{\"model\":\"m\",\"input\":\"Responses or embeddings\"}",
            "{\"model\":\"m\",\"prompt\":\"legacy completions\"}",
            "{\"instructions\":\"x\"}",
            "{\"suffix\":\"x\"}",
            "{\"text\":{\"format\":{}}}",
            "{\"mod\\u0065l\":\"m\"}", // a name with an escape
            "{\"model\":\"caf\u00e9\"}", // a model the walk decodes
            "{\"model\":\"a\\/b\"}",
            "{\"model\":null}",
            "{\"max_tokens\":12.5}",
            "{\"max_tokens\":-1}",
            "{\"max_tokens\":\"12\"}",
            "{\"max_tokens\":1234567890123456}",
            "{\"max_tokens\":{}}",
            "{\"stream\":{\"x\":true}}",
            "{\"stream_options\":{\"include_usage\":[]}}",
            "{\"service_tier\":7}", // the walk reads a number as its text
            "{\"service_tier\":\"fl\\u0065x\"}",
            "[{\"model\":\"m\"}]",
            "\uFEFF{\"model\":\"m\"}",
            "",
            "   ",
        };
        for (String body : declined) {
            assertThat(plain(utf8(body))).as(body).isNull();
        }
        assertThat(PlainChatRequest.read(null, 0, new OpenAiRequestBody())).isFalse();
        assertThat(PlainChatRequest.read(utf8("{}"), 3, new OpenAiRequestBody()))
                .isFalse(); // a length past the array
    }

    @Test
    void declinesMalformedBodies() {
        String[] malformed = {
            "{\"messages\":[{\"role\":\"a\tb\"}]}", // a raw control char in a string the walk reads
            "{\"messages\":[{\"content\":\"\\q\"}]}",
            "{\"messages\":[{\"content\":\"\\u12G4\"}]}",
            "{\"messages\":[{\"content\":\"cut",
            "{\"messages\":[{\"content\":\"a\"}]",
            "{\"messages\":[{\"content\":\"a\"},]}",
            "{\"model\":\"m\",}",
            "{\"model\" \"m\"}",
            "{\"temperature\":01}",
            "{\"temperature\":1.}",
            "{\"temperature\":-}",
            "{\"x\":tru}",
            "{model:1}",
        };
        for (String body : malformed) {
            assertThat(plain(utf8(body))).as(body).isNull();
        }
        byte[][] brokenUtf8 = {
            {'{', '"', 'x', '"', ':', '"', (byte) 0xC3, '"', '}'}, // a cut sequence
            {'{', '"', 'x', '"', ':', '"', (byte) 0x80, '"', '}'}, // a lone continuation byte
            {'{', '"', 'x', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'}, // overlong
            {'{', '"', 'x', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'}, // a surrogate
            {'{', '"', 'x', '"', ':', '"', (byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80, '"', '}'},
        };
        for (byte[] body : brokenUtf8) {
            assertThat(plain(body)).as(Arrays.toString(body)).isNull();
        }
    }

    /**
     * Random chat bodies, well-formed and then cut or with a byte changed: every well-formed one is
     * read plainly, and whenever the plain read accepts a body, the walk reads the same facts.
     */
    @Test
    void agreesWithTheWalkOnRandomBodies() {
        Random random = new Random(11);
        int accepted = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] json = utf8(body(random));
            boolean wellFormed = round % 3 == 0;
            if (round % 3 == 1 && json.length > 1) {
                json = Arrays.copyOf(json, 1 + random.nextInt(json.length - 1));
            } else if (round % 3 == 2) {
                json[random.nextInt(json.length)] = MUTATIONS[random.nextInt(MUTATIONS.length)];
            }
            List<Object> plain = plain(json);
            String shown = new String(json, StandardCharsets.UTF_8);
            if (wellFormed) {
                assertThat(plain).as("a chat body declined: %s", shown).isNotNull();
            }
            if (plain != null) {
                accepted++;
                assertThat(plain).as(shown).isEqualTo(facts(OpenAiRequestBody.walked(json)));
            }
        }
        assertThat(accepted).isGreaterThan(8_000);
    }

    /** Bytes a mutated body gets one of: JSON's structure, a number's, an escape's, a control char, broken UTF-8. */
    private static final byte[] MUTATIONS = {
        '{',
        '}',
        '[',
        ']',
        '"',
        ',',
        ':',
        '0',
        '-',
        '.',
        'e',
        ' ',
        't',
        'n',
        '\\',
        'u',
        '9',
        'a',
        1,
        (byte) 0x80,
        (byte) 0xC3,
        (byte) 0xF0
    };

    private static String body(Random random) {
        StringBuilder json = new StringBuilder("{");
        int members = 1 + random.nextInt(6);
        for (int m = 0; m < members; m++) {
            if (m > 0) {
                json.append(random.nextBoolean() ? "," : " , ");
            }
            switch (random.nextInt(10)) {
                case 0:
                    json.append("\"model\":\"gpt-").append(random.nextInt(5)).append("o\"");
                    break;
                case 1:
                    json.append('"')
                            .append(pick(random, "max_tokens", "max_completion_tokens", "max_output_tokens"))
                            .append("\":")
                            .append(random.nextInt(4) == 0 ? "null" : String.valueOf(random.nextInt(100_000)));
                    break;
                case 2:
                    json.append("\"stream\":").append(pick(random, "true", "false", "null", "1"));
                    break;
                case 3:
                    json.append("\"stream_options\":{\"include_usage\":")
                            .append(pick(random, "true", "false"))
                            .append(random.nextBoolean() ? ",\"other\":[1,{\"include_usage\":true}]}" : "}");
                    break;
                case 4:
                case 5:
                    json.append("\"messages\":[");
                    int messages = random.nextInt(4);
                    for (int k = 0; k < messages; k++) {
                        json.append(k > 0 ? "," : "").append(message(random));
                    }
                    json.append(']');
                    break;
                case 6:
                    json.append('"')
                            .append(pick(random, "tools", "functions"))
                            .append("\":[")
                            .append(
                                    "{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"type\":\"object\","
                                            + "\"properties\":{\"q\":{\"type\":\"string\",\"description\":")
                            .append(text(random))
                            .append("}}}}}")
                            .append(random.nextBoolean() ? ",[true]]" : "]");
                    break;
                case 7:
                    json.append("\"response_format\":")
                            .append(pick(random, "{\"type\":\"json_object\"}", "\"auto\"", "[1, 2.5e3, -0.1]"));
                    break;
                case 8:
                    json.append("\"service_tier\":")
                            .append(pick(random, "\"flex\"", "\"priority\"", "\"auto\"", "null"));
                    break;
                default:
                    json.append('"')
                            .append(pick(random, "temperature", "user", "n", "seed", "logit_bias"))
                            .append("\":")
                            .append(pick(random, "0.7", "\"u-1\"", "2", "-12", "{\"1\":-100}", "1E+2", "[]"));
            }
        }
        return json.append('}').toString();
    }

    private static String message(Random random) {
        switch (random.nextInt(5)) {
            case 0:
                return "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":" + text(random)
                        + "},{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/y.png\"}}]}";
            case 1:
                return "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"f\",\"arguments\":" + text(random) + "}}]}";
            case 2:
                return "{\"role\":\"assistant\",\"function_call\":{\"name\":\"f\",\"arguments\":" + text(random)
                        + "},\"refusal\":" + text(random) + "}";
            case 3:
                return "[\"an\",\"array\"]";
            default:
                return "{\"role\":\"user\",\"name\":\"n\",\"content\":" + text(random) + "}";
        }
    }

    /** A JSON string of random length mixing ASCII runs, escapes and UTF-8 of two, three and four bytes. */
    private static String text(Random random) {
        StringBuilder text = new StringBuilder("\"");
        int pieces = random.nextInt(12);
        for (int k = 0; k < pieces; k++) {
            text.append(pick(
                    random,
                    "plain words ",
                    "x".repeat(random.nextInt(40)),
                    "\\n",
                    "\\\"",
                    "\\u00e9",
                    "\\ud83d\\ude00",
                    "é",
                    "中文",
                    "\uD83D\uDE00",
                    "{\\\"k\\\":1}"));
        }
        return text.append('"').toString();
    }

    private static String pick(Random random, String... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
