package dev.sluice.core.provider.eventstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.eventstream.HeaderValue;
import software.amazon.awssdk.eventstream.Message;

class EventStreamDecoderTest {

    /** The format's own vectors (awslabs/aws-c-event-stream): no headers, no payload. */
    static final String EMPTY = "000000100000000005c248eb7d98c8ff";
    /** A payload of {@code {'foo':'bar'}}, no headers. */
    static final String PAYLOAD_ONLY = "0000001d00000000fd528c5a7b27666f6f273a27626172277dc3653936";
    /** One string header {@code content-type: application/json} and the same payload. */
    static final String ONE_STRING_HEADER = "0000003d0000002007fd83960c636f6e74656e742d747970650700106170706c69636174"
            + "696f6e2f6a736f6e7b27666f6f273a27626172277d8d9c08b1";

    /** One message as the listener saw it. */
    static final class Seen {
        final String headers;
        final String payload;

        Seen(String headers, String payload) {
            this.headers = headers;
            this.payload = payload;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Seen && ((Seen) o).headers.equals(headers) && ((Seen) o).payload.equals(payload);
        }

        @Override
        public int hashCode() {
            return headers.hashCode() * 31 + payload.hashCode();
        }

        @Override
        public String toString() {
            return headers + " " + payload;
        }
    }

    static List<Seen> decode(byte[] stream, int maxMessageBytes, int... cuts) {
        List<Seen> seen = new ArrayList<>();
        EventStreamDecoder decoder = new EventStreamDecoder(
                (headers, buffer, offset, length) -> seen.add(
                        new Seen(headers.toString(), new String(buffer, offset, length, StandardCharsets.UTF_8))),
                maxMessageBytes);
        int from = 0;
        for (int cut : cuts) {
            decoder.feed(stream, from, cut - from);
            from = cut;
        }
        decoder.feed(stream, from, stream.length - from);
        return seen;
    }

    static byte[] hex(String s) {
        byte[] bytes = new byte[s.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    @Test
    void readsTheFormatsOwnVectors() {
        assertThat(decode(hex(EMPTY), 1024)).containsExactly(new Seen("{}", ""));
        assertThat(decode(hex(PAYLOAD_ONLY), 1024)).containsExactly(new Seen("{}", "{'foo':'bar'}"));
        assertThat(decode(hex(ONE_STRING_HEADER), 1024))
                .containsExactly(new Seen("{content-type=application/json}", "{'foo':'bar'}"));
    }

    @Test
    void readsEveryHeaderTypeTheSdkWritesAndKeepsTheStrings() {
        Map<String, HeaderValue> headers = new LinkedHashMap<>();
        headers.put("t", HeaderValue.fromBoolean(true));
        headers.put("f", HeaderValue.fromBoolean(false));
        headers.put("b", HeaderValue.fromByte((byte) 7));
        headers.put("s", HeaderValue.fromShort((short) 300));
        headers.put("i", HeaderValue.fromInteger(70_000));
        headers.put("l", HeaderValue.fromLong(1L << 40));
        headers.put("bytes", HeaderValue.fromByteArray(new byte[] {1, 2, 3}));
        headers.put(":event-type", HeaderValue.fromString("metadata"));
        headers.put("ts", HeaderValue.fromTimestamp(Instant.ofEpochMilli(1_700_000_000_000L)));
        headers.put("u", HeaderValue.fromUuid(UUID.randomUUID()));
        headers.put(":message-type", HeaderValue.fromString("event"));
        byte[] stream = sdkFrame(headers, "{\"usage\":{\"inputTokens\":12}}");

        List<Seen> seen = decode(stream, 1024);

        assertThat(seen)
                .containsExactly(
                        new Seen("{:event-type=metadata, :message-type=event}", "{\"usage\":{\"inputTokens\":12}}"));
    }

    @Test
    void anyChunkingGivesTheSameMessages() {
        byte[] stream = concat(
                sdkEvent("messageStart", "{\"role\":\"assistant\"}"),
                sdkEvent("contentBlockDelta", "{\"delta\":{\"text\":\"Grüße 👋\"},\"contentBlockIndex\":0}"),
                hex(ONE_STRING_HEADER),
                sdkEvent("metadata", "{\"usage\":{\"inputTokens\":12,\"outputTokens\":3,\"totalTokens\":15}}"));
        List<Seen> whole = decode(stream, 1024);
        assertThat(whole).hasSize(4);

        for (int cut = 1; cut < stream.length; cut++) {
            assertThat(decode(stream, 1024, cut)).as("cut at %d", cut).isEqualTo(whole);
        }
        Random random = new Random(42);
        for (int run = 0; run < 500; run++) {
            int[] cuts = random.ints(random.nextInt(20), 1, stream.length)
                    .sorted()
                    .distinct()
                    .toArray();
            assertThat(decode(stream, 1024, cuts)).isEqualTo(whole);
        }
        int[] everyByte = new int[stream.length - 1];
        for (int i = 0; i < everyByte.length; i++) {
            everyByte[i] = i + 1;
        }
        assertThat(decode(stream, 1024, everyByte)).isEqualTo(whole);
    }

    @Test
    void aMessageOverTheCapIsPassedOverAndTheNextOneStillRead() {
        String big = "x".repeat(5_000);
        byte[] stream = concat(sdkEvent("chunk", big), sdkEvent("metadata", "{\"usage\":{}}"), sdkEvent("chunk", big));
        List<Seen> seen = new ArrayList<>();
        EventStreamDecoder decoder = new EventStreamDecoder(
                (h, b, o, l) -> seen.add(new Seen(h.get(":event-type"), new String(b, o, l, StandardCharsets.UTF_8))),
                1024);
        for (int at = 0; at < stream.length; at += 100) {
            decoder.feed(stream, at, Math.min(100, stream.length - at));
        }

        assertThat(seen).containsExactly(new Seen("metadata", "{\"usage\":{}}"));
        assertThat(decoder.dropped()).isEqualTo(2);
        assertThat(decoder.atBoundary()).isTrue();
    }

    @Test
    void aMessageWhoseCrcDoesNotMatchIsDroppedAndTheRestRead() {
        byte[] bad = hex(PAYLOAD_ONLY);
        bad[14] ^= 1; // a payload byte: the message CRC no longer matches
        byte[] stream = concat(bad, hex(ONE_STRING_HEADER));

        List<Seen> seen = decode(stream, 1024);

        assertThat(seen).containsExactly(new Seen("{content-type=application/json}", "{'foo':'bar'}"));
    }

    @Test
    void aPreludeWhoseCrcDoesNotMatchLosesTheFramingForGood() {
        byte[] bad = hex(PAYLOAD_ONLY);
        bad[3] ^= 1; // the total length: the prelude CRC no longer matches
        byte[] stream = concat(bad, hex(ONE_STRING_HEADER));
        List<Seen> seen = new ArrayList<>();
        EventStreamDecoder decoder = new EventStreamDecoder((h, b, o, l) -> seen.add(null), 1024);

        decoder.feed(stream, 0, stream.length);

        assertThat(seen).isEmpty();
        assertThat(decoder.lost()).isTrue();
    }

    @Test
    void lengthsNoMessageCanHaveLoseTheFraming() {
        // total 8 (under the 16 a message needs), with its prelude CRC right
        byte[] tooShort = prelude(8, 0);
        // headers longer than the message
        byte[] headersTooLong = prelude(32, 20);
        for (byte[] stream : List.of(tooShort, headersTooLong)) {
            EventStreamDecoder decoder = new EventStreamDecoder((h, b, o, l) -> {}, 1024);
            decoder.feed(stream, 0, stream.length);
            assertThat(decoder.lost()).isTrue();
        }
    }

    @Test
    void garbageNeverThrows() {
        Random random = new Random(7);
        for (int run = 0; run < 2_000; run++) {
            byte[] noise = new byte[random.nextInt(200)];
            random.nextBytes(noise);
            EventStreamDecoder decoder = new EventStreamDecoder((h, b, o, l) -> {}, 64);
            decoder.feed(noise, 0, noise.length);
            decoder.feed(null, 0, 3);
            decoder.feed(noise, -1, 2);
        }
    }

    @Test
    void holdsNoMoreThanTheLongestMessageKept() {
        byte[] stream = concat(sdkEvent("a", "x".repeat(900)), sdkEvent("b", "y".repeat(100)));
        EventStreamDecoder decoder =
                new EventStreamDecoder((h, b, o, l) -> assertThat(b.length).isLessThanOrEqualTo(1024), 1024);
        decoder.feed(stream, 0, stream.length);
        assertThat(decoder.messages()).isEqualTo(2);
    }

    static byte[] sdkEvent(String eventType, String payload) {
        Map<String, HeaderValue> headers = new LinkedHashMap<>();
        headers.put(":event-type", HeaderValue.fromString(eventType));
        headers.put(":content-type", HeaderValue.fromString("application/json"));
        headers.put(":message-type", HeaderValue.fromString("event"));
        return sdkFrame(headers, payload);
    }

    /** A message as the AWS SDK's own encoder writes it. */
    static byte[] sdkFrame(Map<String, HeaderValue> headers, String payload) {
        ByteBuffer frame = new Message(headers, payload.getBytes(StandardCharsets.UTF_8)).toByteBuffer();
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        return bytes;
    }

    private static byte[] prelude(int total, int headers) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        byte[] p = ByteBuffer.allocate(12).putInt(total).putInt(headers).array();
        crc.update(p, 0, 8);
        ByteBuffer.wrap(p).putInt(8, (int) crc.getValue());
        return p;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
