package dev.sluice.core.provider.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RootStringTest {

    static final RootString MODEL = RootString.named("model");

    static String found(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return MODEL.find(bytes, 0, bytes.length);
    }

    @Test
    void findsTheModelAmongTheFirstMembersOfTheProvidersAnswers() {
        assertThat(found(TrailingMemberTest.fixture("chat-completion.json"))).isEqualTo("gpt-4o-2024-08-06");
        assertThat(found(TrailingMemberTest.fixture("response.json"))).isEqualTo("gpt-4.1-2025-04-14");
        assertThat(found(TrailingMemberTest.fixture("embeddings.json"))).isEqualTo("text-embedding-3-small");
        assertThat(found("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
                        + "\"claude-sonnet-4-5-20250929\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}"))
                .isEqualTo("claude-sonnet-4-5-20250929");
    }

    @Test
    void findsTheModelAmongTheLastMembersWhenALargeContainerComesFirst() {
        // Azure OpenAI writes its members in alphabetical order: the model after the choices
        String text = "x".repeat(RootString.MOST_CONTAINER_BYTES);
        String azure = "{\"choices\":[{\"content_filter_results\":{},\"finish_reason\":\"stop\",\"index\":0,"
                + "\"message\":{\"content\":\"" + text + "\",\"role\":\"assistant\"}}],\"created\":1733,"
                + "\"id\":\"chatcmpl-A\",\"model\":\"gpt-4o-2024-11-20\",\"object\":\"chat.completion\","
                + "\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{\"hate\":"
                + "{\"filtered\":false,\"severity\":\"safe\"}}}],\"system_fingerprint\":\"fp_b705f0c291\","
                + "\"usage\":{\"completion_tokens\":10,\"prompt_tokens\":19,\"total_tokens\":29}}";
        assertThat(found(azure)).isEqualTo("gpt-4o-2024-11-20");
        // and a long string before it is read past: the instructions a Responses answer echoes
        assertThat(found("{\"id\":\"r\",\"instructions\":\"" + "y".repeat(50_000) + "\",\"model\":\"gpt-4.1\","
                        + "\"output\":[{\"content\":\"" + text + "\"}]}"))
                .isEqualTo("gpt-4.1");
    }

    @Test
    void aModelBetweenTwoLargeContainersIsNotLookedFor() {
        String text = "\"" + "x".repeat(RootString.MOST_CONTAINER_BYTES) + "\"";
        assertThat(found("{\"a\":[" + text + "],\"model\":\"m\",\"b\":[" + text + "]}"))
                .isNull();
    }

    @Test
    void aModelThatIsNotTheRootsOwnIsNotFound() {
        assertThat(found("{\"message\":{\"model\":\"m\"}}")).isNull();
        assertThat(found("{\"choices\":[{\"model\":\"m\"}],\"usage\":{}}")).isNull();
        assertThat(found("{\"text\":\"\\\"model\\\":\\\"m\\\"\"}")).isNull();
        assertThat(found("{\"text\":\"say \\\\\",\"x\":{\"model\":\"m\"}}")).isNull();
        assertThat(found("{\"x\":{\"model\":\"m\"},\"text\":\"\\\"model\\\":\\\"n\\\"\"}"))
                .isNull();
        assertThat(found("[{\"model\":\"m\"}]")).isNull();
        assertThat(found("{}")).isNull();
    }

    @Test
    void onlyAPlainNameIsTaken() {
        assertThat(found("{\"model\":\"\"}")).isNull();
        assertThat(found("{\"model\":null}")).isNull();
        assertThat(found("{\"model\":5}")).isNull();
        assertThat(found("{\"model\":{\"id\":\"m\"}}")).isNull();
        assertThat(found("{\"model\":\"a\\u0000b\"}")).isNull();
        assertThat(found("{\"model\":\"a\\\"b\"}")).isNull();
        assertThat(found("{\"model\":\"" + "m".repeat(JsonScalars.MOST_NAME_CHARS + 1) + "\"}"))
                .isNull();
        assertThat(found("{\"model\":\"" + "m".repeat(JsonScalars.MOST_NAME_CHARS) + "\"}"))
                .hasSize(JsonScalars.MOST_NAME_CHARS);
        assertThat(found("{\"model\" : \"modèle-été\" }")).isEqualTo("modèle-été");
    }

    @Test
    void aPlainNameIsRequired() {
        assertThatThrownBy(() -> RootString.named("a\"b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RootString.named("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badInputFindsNothingAndNeverThrows() {
        assertThat(MODEL.find(null, 0, 1)).isNull();
        assertThat(MODEL.find(new byte[4], 3, 2)).isNull();
        assertThat(MODEL.find(new byte[0], 0, 0)).isNull();
        Random random = new Random(7);
        byte[] chat = TrailingMemberTest.fixture("chat-completion.json").getBytes(StandardCharsets.UTF_8);
        for (int round = 0; round < 3_000; round++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            if (junk.length > 0) {
                MODEL.find(junk, 0, junk.length);
            }
            int cut = 1 + random.nextInt(chat.length);
            String model = MODEL.find(chat, 0, cut);
            assertThat(model).as("cut at %d", cut).isIn(null, "gpt-4o-2024-08-06");
        }
    }

    /**
     * Random documents, the model anywhere (at the root among small or large members, nested,
     * inside strings, absent): what is found is always what a walk of the whole document reads
     * at the root; and a root model among small members only is always found.
     */
    @Test
    void agreesWithAWalkOfTheWholeDocument() {
        Random random = new Random(42);
        int foundCount = 0;
        for (int round = 0; round < 5_000; round++) {
            List<String> members = new ArrayList<>();
            int n = random.nextInt(6);
            boolean large = false;
            for (int i = 0; i < n; i++) {
                boolean big = random.nextInt(5) == 0;
                large |= big;
                members.add("\"k" + i + "\":" + (big ? bigValue(random) : smallValue(random)));
            }
            boolean rootModel = random.nextInt(4) > 0;
            String model = "m-" + round;
            if (rootModel) {
                members.add("\"model\":\"" + model + "\"");
                Collections.shuffle(members, random);
            }
            String json = "{" + String.join(random.nextBoolean() ? "," : " ,\n ", members) + "}";
            String[] walked = {null};
            JsonWalker.walk(json, (path, p) -> {
                if (path.equals("model")) {
                    walked[0] = p.getText();
                }
            });
            String fast = found(json);
            if (fast != null) {
                foundCount++;
                assertThat(fast).as(json).isEqualTo(walked[0]);
            } else {
                assertThat(rootModel && !large).as(json).isFalse();
            }
        }
        assertThat(foundCount).isGreaterThan(2_000);
    }

    private static String smallValue(Random random) {
        switch (random.nextInt(8)) {
            case 0:
                return "null";
            case 1:
                return "-1.5e+3";
            case 2:
                return "{\"model\":\"nested\",\"x\":[1,{\"y\":\"}\"}]}";
            case 3:
                return "[\"model\",\"\\\"model\\\":\\\"in a string\\\"\"]";
            case 4:
                return "\"say \\\\\"";
            case 5:
                return "{}";
            case 6:
                return "true";
            default:
                return "\"fp_" + random.nextInt(99) + "\"";
        }
    }

    private static String bigValue(Random random) {
        String filler = "\"" + "z".repeat(RootString.MOST_CONTAINER_BYTES) + "\"";
        return random.nextBoolean()
                ? "[{\"model\":\"deep\",\"text\":" + filler + "}]"
                : "{\"content\":" + filler + ",\"model\":\"deep\"}";
    }
}
