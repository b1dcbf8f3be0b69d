package dev.sluice.core.provider.wire;

import dev.sluice.core.provider.Headers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Names an API key without revealing it: {@code k_} and the first 6 hex digits of its SHA-256, so
 * limits, logs, JMX and rejection bodies can tell keys apart while the key itself never leaves the
 * request. Six hex digits tell a JVM's handful of keys apart; they do not identify a key to anyone
 * who does not already hold it.
 */
public final class ApiKeyIds {

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final String BEARER = "bearer ";

    /**
     * The ids of the last keys seen, direct-mapped by the hash of the string they came from (the
     * raw key or the whole {@code Authorization} value): hashing a key with SHA-256 on every call
     * was the largest single cost of reading a request. A slot holds the application's own string,
     * which the application holds anyway, and a JVM's handful of keys fit; with more, a slot is
     * overwritten and the key hashed again. Slots are written racily: an {@link Entry} is
     * immutable, so a reader sees a whole one or another.
     */
    private static final int SLOTS = 64;

    private static final Entry[] SEEN = new Entry[SLOTS];

    /** The same for whole {@code Authorization} values: kept apart, as a raw key may itself start with "Bearer ". */
    private static final Entry[] SEEN_BEARER = new Entry[SLOTS];

    private static final class Entry {
        final String source;
        final String id;

        Entry(String source, String id) {
            this.source = source;
            this.id = id;
        }
    }

    private ApiKeyIds() {}

    /** The id of a raw key, or null when there is no key. */
    public static String of(String rawKey) {
        if (rawKey == null) {
            return null;
        }
        Entry seen = SEEN[slot(rawKey)];
        if (seen != null && seen.source.equals(rawKey)) {
            return seen.id;
        }
        String id = idOf(rawKey);
        if (id != null) {
            SEEN[slot(rawKey)] = new Entry(rawKey, id);
        }
        return id;
    }

    private static int slot(String source) {
        int h = source.hashCode();
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }

    private static String idOf(String rawKey) {
        String key = rawKey.trim();
        if (key.isEmpty()) {
            return null;
        }
        byte[] digest = sha256(key.getBytes(StandardCharsets.UTF_8));
        char[] id = {'k', '_', 0, 0, 0, 0, 0, 0};
        for (int i = 0; i < 3; i++) {
            id[2 + 2 * i] = HEX[(digest[i] >> 4) & 0xF];
            id[3 + 2 * i] = HEX[digest[i] & 0xF];
        }
        return new String(id);
    }

    /** The id of the key in {@code Authorization: Bearer <key>} (OpenAI, compatible APIs, Azure Entra tokens), or null. */
    public static String fromBearer(Headers headers) {
        String value = headers == null ? null : headers.first("authorization");
        if (value == null
                || value.length() <= BEARER.length()
                || !value.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        Entry seen = SEEN_BEARER[slot(value)];
        if (seen != null && seen.source.equals(value)) {
            return seen.id;
        }
        String id = idOf(value.substring(BEARER.length()));
        if (id != null) {
            SEEN_BEARER[slot(value)] = new Entry(value, id);
        }
        return id;
    }

    /** The id of the key carried in a header of its own ({@code api-key} for Azure, {@code x-api-key} for Anthropic), or null. */
    public static String fromHeader(Headers headers, String name) {
        return headers == null ? null : of(headers.first(name));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException impossible) {
            throw new AssertionError("every JVM has SHA-256", impossible);
        }
    }
}
