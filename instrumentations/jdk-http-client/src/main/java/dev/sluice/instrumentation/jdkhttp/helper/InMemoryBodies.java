package dev.sluice.instrumentation.jdkhttp.helper;

import java.lang.reflect.Field;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.Arrays;

/**
 * Reads the body of the JDK's in-memory publishers ({@code BodyPublishers.ofString}, {@code
 * ofByteArray}) where the publisher keeps it. A subscription to one copies the whole body into new
 * buffers and runs it through the JDK's pull machinery: for an 8 KiB prompt that was a few
 * microseconds and 8 KB a governed call, only to read bytes already in memory. Needs the package
 * open to the helpers ({@code JdkHttpClientInstrumentation#packagesOpenedToHelpers}); without it,
 * or on a JDK whose publisher keeps its bytes otherwise, nothing is read here and the body is
 * subscribed to, as before.
 *
 * <p>The bytes are shared with the publisher, never written: Sluice only reads a request body,
 * and the JDK sends these publishers' bytes as they are at the time of the send.
 */
final class InMemoryBodies {

    private static final String PUBLISHER = TrustedTaps.JDK_INTERNAL + ".RequestPublishers$ByteArrayPublisher";

    /** {@code ByteArrayPublisher} and its fields, or null when they cannot be read. */
    private static final Class<?> TYPE;

    private static final Field CONTENT;
    private static final Field OFFSET;
    private static final Field LENGTH;

    static {
        Class<?> type = null;
        Field content = null;
        Field offset = null;
        Field length = null;
        try {
            Module jdk = HttpClient.class.getModule();
            if (jdk.isOpen(TrustedTaps.JDK_INTERNAL, InMemoryBodies.class.getModule())) {
                type = Class.forName(PUBLISHER, false, HttpClient.class.getClassLoader());
                content = accessible(type.getDeclaredField("content"), byte[].class);
                offset = accessible(type.getDeclaredField("offset"), int.class);
                length = accessible(type.getDeclaredField("length"), int.class);
            }
        } catch (ReflectiveOperationException | LinkageError | RuntimeException unavailable) {
            type = null;
        }
        TYPE = type;
        CONTENT = content;
        OFFSET = offset;
        LENGTH = length;
    }

    private InMemoryBodies() {}

    private static Field accessible(Field field, Class<?> expected) throws NoSuchFieldException {
        if (field.getType() != expected) {
            throw new NoSuchFieldException(field + " is not a " + expected);
        }
        field.setAccessible(true);
        return field;
    }

    /** Whether bodies can be read here at all (the package is open and the JDK's publisher is as expected). */
    static boolean available() {
        return TYPE != null;
    }

    /**
     * The body of one of the JDK's in-memory publishers: the publisher's own array when the body is
     * all of it, else a copy of the part; null for any other publisher or when it cannot be read.
     */
    static byte[] of(HttpRequest.BodyPublisher publisher) {
        if (TYPE == null || !TYPE.isInstance(publisher)) {
            return null;
        }
        try {
            byte[] content = (byte[]) CONTENT.get(publisher);
            int offset = OFFSET.getInt(publisher);
            int length = LENGTH.getInt(publisher);
            if (content == null || offset < 0 || length < 0 || offset > content.length - length) {
                return null;
            }
            return offset == 0 && length == content.length
                    ? content
                    : Arrays.copyOfRange(content, offset, offset + length);
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            return null;
        }
    }
}
