package dev.sluice.simulator.profile.bedrock;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Writes AWS event-stream messages ({@code application/vnd.amazon.eventstream}) as Bedrock sends
 * them: a prelude (total length, headers length, both big-endian 32-bit, then the CRC32 of those 8
 * bytes), string headers (1-byte name length, name, type 7, 2-byte value length, value), the
 * payload, and the CRC32 of everything before it.
 */
public final class EventStreamEncoder {

    private static final byte STRING = 7;

    private EventStreamEncoder() {}

    /** One message with these string headers, in order, and this payload. */
    public static byte[] message(Map<String, String> headers, byte[] payload) {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        for (Map.Entry<String, String> header : headers.entrySet()) {
            byte[] name = header.getKey().getBytes(StandardCharsets.UTF_8);
            byte[] value = header.getValue().getBytes(StandardCharsets.UTF_8);
            if (name.length == 0 || name.length > 255 || value.length > 0xFFFF) {
                throw new IllegalArgumentException("header does not fit the format: " + header.getKey());
            }
            h.write(name.length);
            h.writeBytes(name);
            h.write(STRING);
            h.write(value.length >>> 8);
            h.write(value.length & 0xFF);
            h.writeBytes(value);
        }
        byte[] headerBytes = h.toByteArray();
        int total = 12 + headerBytes.length + payload.length + 4;
        ByteBuffer message = ByteBuffer.allocate(total);
        message.putInt(total).putInt(headerBytes.length);
        message.putInt((int) crc(message.array(), 0, 8));
        message.put(headerBytes).put(payload);
        message.putInt((int) crc(message.array(), 0, total - 4));
        return message.array();
    }

    /** An {@code event} message of this type with a JSON payload, as Bedrock's streams carry. */
    public static byte[] event(String eventType, String json) {
        return message(headers(":event-type", eventType, "event"), json.getBytes(StandardCharsets.UTF_8));
    }

    /** An {@code exception} message (an error inside a successful stream). */
    public static byte[] exception(String exceptionType, String json) {
        return message(headers(":exception-type", exceptionType, "exception"), json.getBytes(StandardCharsets.UTF_8));
    }

    /** The three headers of a Bedrock message, in the order Bedrock writes them. */
    private static Map<String, String> headers(String typeHeader, String type, String messageType) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(typeHeader, type);
        h.put(":content-type", "application/json");
        h.put(":message-type", messageType);
        return h;
    }

    private static long crc(byte[] bytes, int offset, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, offset, length);
        return crc.getValue();
    }
}
