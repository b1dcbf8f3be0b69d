package dev.sluice.simulator.protocol;

import java.util.concurrent.atomic.AtomicLong;

/** Provider-looking identifiers (chatcmpl-..., msg_..., req_...), unique within a process. */
public final class Ids {
    private static final AtomicLong NEXT = new AtomicLong(1);

    private Ids() {}

    /** The first {@code length} hex digits of the SHA-256 of {@code text}: stable, opaque ids. */
    public static String digest(String text, int length) {
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder();
            for (byte b : hash) {
                hex.append(String.format("%02x", b));
            }
            return hex.substring(0, Math.min(length, hex.length()));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String next(String prefix) {
        return prefix + String.format("sim%021d", NEXT.getAndIncrement());
    }
}
