package dev.sluice.simulator.server;

import com.github.tomakehurst.wiremock.common.InputStreamSource;
import dev.sluice.simulator.protocol.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A response body whose frames become readable at their offsets from the first read, so that
 * WireMock, copying it to the socket, sends an SSE stream at the pace of a real model. Each read
 * returns bytes of one frame only, and the server flushes event streams after every write, so each
 * event leaves when it is due. A truncated body fails after its frames, which the server turns into
 * an aborted connection.
 *
 * <p>Sleeping here holds a container thread for the length of the stream, as a real streaming
 * server holds a connection; the server is given enough threads (see {@code containerThreads}).
 */
final class PacedBody implements InputStreamSource {
    private final List<Frame> frames;
    private final boolean truncated;

    PacedBody(List<Frame> frames, boolean truncated) {
        this.frames = List.copyOf(frames);
        this.truncated = truncated;
    }

    @Override
    public InputStream getStream() {
        return new Paced();
    }

    /** Thrown to cut a body; recognised by the filter, which aborts the connection. */
    static final class Truncation extends IOException {
        private static final long serialVersionUID = 1L;

        Truncation() {
            super("body truncated by the simulator");
        }
    }

    private final class Paced extends InputStream {
        private long startNanos = -1;
        private int next;
        private byte[] current = new byte[0];
        private int pos;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n <= 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0; // WireMock peeks at bodies for its log with a zero limit: no pacing then
            }
            while (pos >= current.length) {
                if (next >= frames.size()) {
                    if (truncated) {
                        ExchangeScope scope = ExchangeScope.current();
                        if (scope != null) {
                            scope.markTruncated();
                        }
                        throw new Truncation();
                    }
                    return -1;
                }
                Frame frame = frames.get(next++);
                if (startNanos < 0) {
                    startNanos = System.nanoTime();
                }
                sleepUntil(startNanos + frame.at().toNanos());
                current = frame.bytes();
                pos = 0;
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }

        private void sleepUntil(long deadline) throws IOException {
            long wait;
            while ((wait = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while pacing", e);
                }
            }
        }
    }
}
