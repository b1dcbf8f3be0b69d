package dev.sluice.simulator.protocol;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What to answer: status, headers, timed body frames, and how the connection ends (normally,
 * truncated mid-body, or reset before anything is sent). Built by protocols, sent by the server.
 */
public final class Reply {
    private final int status;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final List<Frame> frames = new ArrayList<>();
    private boolean truncated;
    private boolean connectionReset;

    public Reply(int status) {
        this.status = status;
    }

    public static Reply json(int status, byte[] body) {
        return new Reply(status).header("Content-Type", "application/json").frame(Duration.ZERO, body);
    }

    /** A whole JSON body sent at {@code at}, or its first half and then a cut connection. */
    public static Reply whole(byte[] body, Duration at, Ending ending) {
        if (ending == Ending.TRUNCATED) {
            return json(200, java.util.Arrays.copyOf(body, body.length / 2))
                    .delayBy(at)
                    .truncated();
        }
        return json(200, body).delayBy(at);
    }

    public static Reply eventStream() {
        return new Reply(200)
                .header("Content-Type", "text/event-stream; charset=utf-8")
                .header("Cache-Control", "no-cache");
    }

    public Reply header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public Reply headers(Map<String, String> values) {
        headers.putAll(values);
        return this;
    }

    public Reply removeHeader(String name) {
        headers.remove(name);
        return this;
    }

    public Reply frame(Duration at, byte[] bytes) {
        frames.add(new Frame(at, bytes));
        return this;
    }

    public Reply frame(Duration at, String text) {
        return frame(at, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Shifts every frame later, e.g. for a slow first byte or generation time. */
    public Reply delayBy(Duration delay) {
        frames.replaceAll(f -> new Frame(f.at().plus(delay), f.bytes()));
        return this;
    }

    /** The body stops after the frames so far and the connection is closed without an end. */
    public Reply truncated() {
        this.truncated = true;
        return this;
    }

    /** Nothing is sent: the connection is reset. */
    public Reply connectionReset() {
        this.connectionReset = true;
        return this;
    }

    public int status() {
        return status;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public List<Frame> frames() {
        return frames;
    }

    public boolean isTruncated() {
        return truncated;
    }

    public boolean isConnectionReset() {
        return connectionReset;
    }

    /** The whole body as text (tests and admin answers). */
    public String bodyText() {
        StringBuilder sb = new StringBuilder();
        frames.forEach(f -> sb.append(new String(f.bytes(), StandardCharsets.UTF_8)));
        return sb.toString();
    }
}
