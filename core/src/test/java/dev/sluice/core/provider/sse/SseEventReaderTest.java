package dev.sluice.core.provider.sse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SseEventReaderTest {

    static final String CHAT_STREAM = ": keep-alive\n\n"
            + "data: {\"choices\":[{\"delta\":{\"content\":\"Grüße 👋 \"}}]}\n\n"
            + "event: response.output_text.delta\r\n"
            + "data: {\"delta\":\"naïve\"}\r\n\r\n"
            + "data: line one\rdata: line two\r\r"
            + "data\n\n"
            + "data:no-space\n"
            + "id: 7\nretry: 10\nunknown: x\n\n"
            + "data: [DONE]\n\n";

    static final List<SseEvent> EXPECTED = List.of(
            SseEvent.of(null, "{\"choices\":[{\"delta\":{\"content\":\"Grüße 👋 \"}}]}"),
            SseEvent.of("response.output_text.delta", "{\"delta\":\"naïve\"}"),
            SseEvent.of(null, "line one\nline two"),
            SseEvent.of(null, ""),
            SseEvent.of(null, "no-space"),
            SseEvent.of(null, "[DONE]"));

    static List<SseEvent> read(byte[] bytes, int... cuts) {
        List<SseEvent> events = new ArrayList<>();
        SseEventReader reader = new SseEventReader(SseEvent.into(events));
        int from = 0;
        for (int cut : cuts) {
            reader.feed(bytes, from, cut - from);
            from = cut;
        }
        reader.feed(bytes, from, bytes.length - from);
        reader.finish();
        return events;
    }

    @Test
    void anEventStreamIsKnownByItsContentTypeInAnyCase() {
        assertThat(SseUsageParser.isEventStream("text/event-stream")).isTrue();
        assertThat(SseUsageParser.isEventStream("Text/Event-Stream; charset=utf-8"))
                .isTrue();
        assertThat(SseUsageParser.isEventStream("application/x ; TEXT/EVENT-STREAM"))
                .isTrue();
        assertThat(SseUsageParser.isEventStream("application/json")).isFalse();
        assertThat(SseUsageParser.isEventStream("text/event-strea")).isFalse();
        assertThat(SseUsageParser.isEventStream("")).isFalse();
        assertThat(SseUsageParser.isEventStream(null)).isFalse();
    }

    @Test
    void readsEventsNamesMultiLineDataCommentsAndDone() {
        List<SseEvent> events = read(CHAT_STREAM.getBytes(StandardCharsets.UTF_8));
        assertThat(events).containsExactlyElementsOf(EXPECTED);
        assertThat(events.get(0).name()).isEqualTo("message");
        assertThat(events.get(5).isDone()).isTrue();
    }

    @Test
    void anySplitIntoTwoChunksGivesTheSameEvents() {
        byte[] bytes = CHAT_STREAM.getBytes(StandardCharsets.UTF_8);
        for (int cut = 0; cut <= bytes.length; cut++) {
            assertThat(read(bytes, cut)).as("cut at %d", cut).containsExactlyElementsOf(EXPECTED);
        }
    }

    @Test
    void byteByByteAndRandomSplitsGiveTheSameEvents() {
        byte[] bytes = CHAT_STREAM.getBytes(StandardCharsets.UTF_8);
        List<SseEvent> events = new ArrayList<>();
        SseEventReader reader = new SseEventReader(SseEvent.into(events));
        for (int i = 0; i < bytes.length; i++) {
            reader.feed(bytes, i, 1);
        }
        reader.finish();
        assertThat(events).containsExactlyElementsOf(EXPECTED);

        Random random = new Random(42);
        for (int round = 0; round < 500; round++) {
            int[] cuts =
                    random.ints(random.nextInt(8), 0, bytes.length + 1).sorted().toArray();
            assertThat(read(bytes, cuts))
                    .as("cuts %s", java.util.Arrays.toString(cuts))
                    .containsExactlyElementsOf(EXPECTED);
        }
    }

    @Test
    void theByteListenerSeesEachEventInTheReadersBufferWithoutACopy() {
        byte[] bytes = CHAT_STREAM.getBytes(StandardCharsets.UTF_8);
        List<SseEvent> events = new ArrayList<>();
        java.util.Set<byte[]> buffers = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        SseEventReader reader = new SseEventReader((name, data, offset, length) -> {
            buffers.add(data);
            events.add(SseEvent.of(name, new String(data, offset, length, StandardCharsets.UTF_8)));
        });
        for (int at = 0; at < bytes.length; at += 7) { // lines split across reads
            reader.feed(bytes, at, Math.min(7, bytes.length - at));
        }
        reader.finish();

        assertThat(events).containsExactlyElementsOf(EXPECTED);
        assertThat(buffers).as("one buffer, the reader's, for every event").hasSize(1);
    }

    @Test
    void aLastEventWithoutItsBlankLineStillCountsAtFinish() {
        assertThat(read("data: {\"usage\":1}".getBytes(StandardCharsets.UTF_8)))
                .containsExactly(SseEvent.of(null, "{\"usage\":1}"));
        assertThat(read("data: a\r".getBytes(StandardCharsets.UTF_8))).containsExactly(SseEvent.of(null, "a"));
    }

    @Test
    void leadingBomIsSkipped() {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        byte[] rest = "data: x\n\n".getBytes(StandardCharsets.UTF_8);
        byte[] bytes = new byte[bom.length + rest.length];
        System.arraycopy(bom, 0, bytes, 0, 3);
        System.arraycopy(rest, 0, bytes, 3, rest.length);
        assertThat(read(bytes, 1)).containsExactly(SseEvent.of(null, "x"));
    }

    @Test
    void aPathologicalLineIsDroppedWithItsEventAndParsingResumes() {
        List<SseEvent> events = new ArrayList<>();
        SseEventReader reader = new SseEventReader(1024, SseEvent.into(events));
        reader.feed("data: before\n\nevent: big\ndata: ".getBytes(StandardCharsets.UTF_8));
        byte[] junk = new byte[10_000];
        java.util.Arrays.fill(junk, (byte) 'x');
        for (int i = 0; i < 100; i++) {
            reader.feed(junk); // a megabyte on one line, fed in pieces: memory stays at the cap
        }
        reader.feed("\n\ndata: after\n\n".getBytes(StandardCharsets.UTF_8));
        reader.finish();
        assertThat(events).containsExactly(SseEvent.of(null, "before"), SseEvent.of(null, "after"));
        assertThat(reader.droppedEvents()).isEqualTo(1);
    }

    @Test
    void tooMuchDataAcrossManyShortLinesIsDroppedToo() {
        List<SseEvent> events = new ArrayList<>();
        SseEventReader reader = new SseEventReader(100, SseEvent.into(events));
        for (int i = 0; i < 50; i++) {
            reader.feed("data: 0123456789\n".getBytes(StandardCharsets.UTF_8));
        }
        reader.feed("\ndata: ok\n\n".getBytes(StandardCharsets.UTF_8));
        assertThat(events).containsExactly(SseEvent.of(null, "ok"));
        assertThat(reader.droppedEvents()).isEqualTo(1);
    }

    @Test
    void garbageNeverThrows() {
        List<SseEvent> events = new ArrayList<>();
        SseEventReader reader = new SseEventReader(64, SseEvent.into(events));
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            byte[] chunk = new byte[random.nextInt(100)];
            random.nextBytes(chunk);
            reader.feed(chunk, 0, chunk.length);
        }
        reader.feed(null, 0, 5);
        reader.feed(new byte[3], 2, 5);
        reader.feed(new byte[3], -1, 1);
        reader.finish();
        reader.finish();
        assertThat(events).allSatisfy(e -> assertThat(e.data()).isNotNull());
    }
}
