package dev.sluice.it.leak;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OpenAI-style provider on a plain {@link ServerSocket}, written apart from the simulator: it
 * answers chat completions with {@code x-ratelimit-*} headers and {@code openai-organization} on
 * every answer, success or error, and fails the way connections fail in the field, as {@link
 * #fault} says when a request comes: a reset (SO_LINGER 0, then close) before reading the request,
 * after its head, in its body or after it; a close without an answer; a reset of the HTTP/2
 * stream; a 500. Over HTTP/1.1 it declines a client's offer to upgrade to HTTP/2 ({@code Upgrade:
 * h2c}) as a server without HTTP/2 does, or, when started so, takes it and goes on over HTTP/2 on
 * that connection ({@link Http2}).
 */
final class RawProvider implements AutoCloseable {

    /** How the next request ends. */
    enum Fault {
        NONE("ok"),
        RESET_AT_ACCEPT("reset-at-accept"),
        RESET_AFTER_HEAD("reset-after-head"),
        RESET_IN_BODY("reset-in-body"),
        RESET_AFTER_BODY("reset-after-body"),
        CLOSE_AFTER_BODY("close-after-body"),
        /** On HTTP/2, a RST_STREAM (INTERNAL_ERROR) once the request came whole, the connection kept; on HTTP/1.1, a reset. */
        RESET_STREAM("reset-stream"),
        ERROR_500("error-500");

        final String wire;

        Fault(String wire) {
            this.wire = wire;
        }

        static Fault of(String wire) {
            for (Fault f : values()) {
                if (f.wire.equals(wire)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("no fault " + wire);
        }
    }

    static final String ORGANIZATION = "org-raw";

    private static final String COMPLETION =
            "{\"id\":\"chatcmpl-raw\",\"object\":\"chat.completion\",\"created\":1700000000,"
                    + "\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                    + "\"content\":\"Hello.\",\"refusal\":null},\"logprobs\":null,\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":14,\"completion_tokens\":3,\"total_tokens\":17}}";

    private static final String SERVER_ERROR = "{\"error\":{\"message\":\"The server had an error while processing your"
            + " request. Sorry about that!\",\"type\":\"server_error\",\"param\":null,\"code\":null}}";

    private final ServerSocket server;
    /** Whether an {@code Upgrade: h2c} offer is taken (101, then HTTP/2 on the connection). */
    private final boolean h2c;

    private volatile Fault fault = Fault.NONE;
    /** Requests whose head was read (over either version), and connections accepted. */
    final AtomicInteger requests = new AtomicInteger();

    final AtomicInteger connections = new AtomicInteger();
    /** HTTP/1.1 requests that offered an upgrade to HTTP/2 (h2c). */
    final AtomicInteger upgradeOffers = new AtomicInteger();

    /** Requests that came as HTTP/2 streams (after an upgrade). */
    final AtomicInteger http2Requests = new AtomicInteger();

    private RawProvider(ServerSocket server, boolean h2c) {
        this.server = server;
        this.h2c = h2c;
    }

    /** {@code h2c}: take a client's offer to upgrade to HTTP/2, else answer HTTP/1.1 as if it made none. */
    static RawProvider start(boolean h2c) throws IOException {
        RawProvider p = new RawProvider(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), h2c);
        Thread acceptor = new Thread(p::accept, "raw-provider-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        return p;
    }

    int port() {
        return server.getLocalPort();
    }

    /** How every request from now on ends. */
    void fault(Fault value) {
        fault = value;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> serve(socket), "raw-provider-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                in.mark(1);
                if (in.read() == -1) {
                    return; // the client closed
                }
                in.reset();
                // what the provider does is decided as the request comes, not when the connection was kept alive
                Fault f = fault;
                if (f == Fault.RESET_AT_ACCEPT) {
                    reset(socket); // before reading the request (on a new or a kept-alive connection)
                    return;
                }
                Map<String, String> head = readHead(in);
                if (head == null) {
                    return;
                }
                requests.incrementAndGet();
                boolean upgrade = head.getOrDefault("upgrade", "").contains("h2c");
                if (upgrade) {
                    upgradeOffers.incrementAndGet();
                }
                if (f == Fault.RESET_AFTER_HEAD) {
                    reset(socket);
                    return;
                }
                long length = Long.parseLong(head.getOrDefault("content-length", "0"));
                boolean chunked = "chunked".equalsIgnoreCase(head.get("transfer-encoding"));
                if (f == Fault.RESET_IN_BODY) {
                    in.readNBytes((int) Math.max(1, length / 2));
                    reset(socket);
                    return;
                }
                if (chunked) {
                    readChunked(in);
                } else {
                    in.readNBytes((int) length);
                }
                if (f == Fault.RESET_AFTER_BODY || f == Fault.RESET_STREAM) {
                    reset(socket);
                    return;
                }
                if (f == Fault.CLOSE_AFTER_BODY) {
                    return; // a FIN, no answer
                }
                boolean error = f == Fault.ERROR_500;
                if (upgrade && h2c) {
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: h2c\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    Http2 h2 = new Http2(socket, in, out);
                    h2.frame(SETTINGS, 0, 0, new byte[0]);
                    h2.answer(1, error);
                    h2.serve();
                    return;
                }
                byte[] body = (error ? SERVER_ERROR : COMPLETION).getBytes(StandardCharsets.UTF_8);
                StringBuilder answer =
                        new StringBuilder(error ? "HTTP/1.1 500 Internal Server Error\r\n" : "HTTP/1.1 200 OK\r\n");
                for (String[] h : headers(body.length)) {
                    answer.append(h[0]).append(": ").append(h[1]).append("\r\n");
                }
                out.write(answer.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
            }
        } catch (IOException ignored) {
            // the client went away
        }
    }

    /** An answer's headers but its status, as OpenAI sends them on every answer, success or error. */
    private String[][] headers(int length) {
        return new String[][] {
            {"content-type", "application/json"},
            {"content-length", String.valueOf(length)},
            {"openai-organization", ORGANIZATION},
            {"openai-processing-ms", "12"},
            {"openai-version", "2020-10-01"},
            {"x-request-id", "req_raw" + requests.get()},
            {"x-ratelimit-limit-requests", "10000"},
            {"x-ratelimit-remaining-requests", "9999"},
            {"x-ratelimit-reset-requests", "6ms"},
            {"x-ratelimit-limit-tokens", "10000000"},
            {"x-ratelimit-remaining-tokens", "9999980"},
            {"x-ratelimit-reset-tokens", "0s"},
        };
    }

    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int RST_STREAM = 3;
    private static final int SETTINGS = 4;
    private static final int PING = 6;
    private static final int GOAWAY = 7;
    private static final int WINDOW_UPDATE = 8;
    private static final int END_STREAM = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int ACK = 0x1;

    /**
     * One connection after the upgrade: the smallest HTTP/2 server that answers (frames read
     * whole, request headers skipped unread: only when a stream opens and ends matters here; an
     * answer's status from HPACK's static table, its other headers as literals, never indexed) and
     * fails as {@link #fault} says when a stream opens.
     */
    private final class Http2 {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final Map<Integer, Fault> streams = new HashMap<>();

        Http2(Socket socket, InputStream in, OutputStream out) {
            this.socket = socket;
            this.in = in;
            this.out = out;
        }

        void serve() throws IOException {
            byte[] preface = in.readNBytes(24);
            if (preface.length < 24) {
                return;
            }
            while (true) {
                byte[] header = in.readNBytes(9);
                if (header.length < 9) {
                    return;
                }
                int length = (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
                int type = header[3] & 0xff;
                int flags = header[4] & 0xff;
                int stream = ((header[5] & 0x7f) << 24)
                        | (header[6] & 0xff) << 16
                        | (header[7] & 0xff) << 8
                        | header[8] & 0xff;
                byte[] payload = in.readNBytes(length);
                switch (type) {
                    case SETTINGS:
                        if ((flags & ACK) == 0) {
                            frame(SETTINGS, ACK, 0, new byte[0]);
                        }
                        break;
                    case PING:
                        if ((flags & ACK) == 0) {
                            frame(PING, ACK, 0, payload);
                        }
                        break;
                    case GOAWAY:
                        return;
                    case HEADERS: {
                        requests.incrementAndGet();
                        http2Requests.incrementAndGet();
                        Fault f = fault;
                        if (f == Fault.RESET_AT_ACCEPT || f == Fault.RESET_AFTER_HEAD) {
                            reset(socket);
                            return;
                        }
                        streams.put(stream, f);
                        if ((flags & END_STREAM) != 0 && !ended(stream)) {
                            return;
                        }
                        break;
                    }
                    case DATA: {
                        Fault f = streams.get(stream);
                        if (f == null) {
                            break;
                        }
                        if (length > 0) {
                            frame(WINDOW_UPDATE, 0, 0, int32(length));
                            frame(WINDOW_UPDATE, 0, stream, int32(length));
                        }
                        if (f == Fault.RESET_IN_BODY) {
                            reset(socket);
                            return;
                        }
                        if ((flags & END_STREAM) != 0 && !ended(stream)) {
                            return;
                        }
                        break;
                    }
                    default:
                        break; // WINDOW_UPDATE, PRIORITY, RST_STREAM, CONTINUATION: nothing to do here
                }
            }
        }

        /** The request on {@code stream} came whole: answer or fail it; false when the connection is gone. */
        private boolean ended(int stream) throws IOException {
            Fault f = streams.remove(stream);
            switch (f) {
                case RESET_IN_BODY:
                case RESET_AFTER_BODY:
                    reset(socket);
                    return false;
                case CLOSE_AFTER_BODY:
                    socket.close();
                    return false;
                case RESET_STREAM:
                    frame(RST_STREAM, 0, stream, int32(2)); // INTERNAL_ERROR
                    return true;
                default:
                    answer(stream, f == Fault.ERROR_500);
                    return true;
            }
        }

        void answer(int stream, boolean error) throws IOException {
            byte[] body = (error ? SERVER_ERROR : COMPLETION).getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            block.write(error ? 0x8e : 0x88); // :status 500 / 200, from the static table
            for (String[] h : headers(body.length)) {
                block.write(0x00); // literal, not indexed, new name
                literal(block, h[0]);
                literal(block, h[1]);
            }
            frame(HEADERS, END_HEADERS, stream, block.toByteArray());
            frame(DATA, END_STREAM, stream, body);
        }

        private void literal(ByteArrayOutputStream block, String text) {
            byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            if (bytes.length >= 127) {
                throw new IllegalArgumentException("too long for this encoder: " + text);
            }
            block.write(bytes.length);
            block.write(bytes, 0, bytes.length);
        }

        void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            byte[] header = {
                (byte) (payload.length >>> 16),
                (byte) (payload.length >>> 8),
                (byte) payload.length,
                (byte) type,
                (byte) flags,
                (byte) (stream >>> 24),
                (byte) (stream >>> 16),
                (byte) (stream >>> 8),
                (byte) stream
            };
            out.write(header);
            out.write(payload);
            out.flush();
        }
    }

    private static byte[] int32(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    /** Closes with a reset: SO_LINGER 0 makes the close send RST, not FIN. */
    private static void reset(Socket socket) throws SocketException {
        socket.setSoLinger(true, 0);
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** The request head's headers (lower-case names), or null at the end of the stream. */
    private static Map<String, String> readHead(InputStream in) throws IOException {
        String requestLine = line(in);
        if (requestLine == null) {
            return null;
        }
        Map<String, String> headers = new TreeMap<>();
        String line;
        while ((line = line(in)) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.put(
                        line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        line.substring(colon + 1).trim());
            }
        }
        return headers;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    private static void readChunked(InputStream in) throws IOException {
        while (true) {
            String size = line(in);
            if (size == null) {
                return;
            }
            int n = Integer.parseInt(size.split(";")[0].trim(), 16);
            if (n == 0) {
                while (true) { // trailers, then the empty line
                    String trailer = line(in);
                    if (trailer == null || trailer.isEmpty()) {
                        return;
                    }
                }
            }
            in.readNBytes(n);
            line(in);
        }
    }
}
