package dev.sluice.instrumentation.okhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bootstrap.BodyObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import okio.Buffer;
import okio.BufferedSource;
import okio.Okio;
import org.junit.jupiter.api.Test;

class ObservedSourceTest {

    /** What an observer was shown, in order, and what it was told. */
    private static class Recording implements BodyObserver {
        final ByteArrayOutputStream seen = new ByteArrayOutputStream();
        int chunks;
        int ends;
        int closes;

        @Override
        public void onBytes(byte[] chunk, int offset, int length) {
            seen.write(chunk, offset, length);
            chunks++;
        }

        @Override
        public void onEnd() {
            ends++;
        }

        @Override
        public void onFailure(Throwable failure) {}

        @Override
        public void onClose() {
            closes++;
        }
    }

    private static byte[] bytes(Random random, int size) {
        byte[] b = new byte[size];
        random.nextBytes(b);
        return b;
    }

    @Test
    void bytesAppendedAcrossTheSinksSegmentsAreShownWhereTheyLieAndLeftAsTheyWere() throws IOException {
        Random random = new Random(7);
        byte[] before = bytes(random, 8_100); // the sink's last segment has 92 bytes of room left
        byte[] body = bytes(random, 3_000);
        // okio moves whole segments: the body's first 50 bytes end a segment (they join the
        // sink's last one), the other 2,950 start the next (they stay a segment of their own)
        Buffer upstream = new Buffer().write(new byte[8_142]).write(body);
        upstream.skip(8_142);
        Recording observer = new Recording();
        ObservedSource source = new ObservedSource(upstream, observer);
        Buffer sink = new Buffer().write(before);

        assertThat(source.read(sink, 3_000)).isEqualTo(3_000);

        assertThat(observer.seen.toByteArray()).isEqualTo(body);
        assertThat(observer.chunks).as("one call a segment").isEqualTo(2);
        Buffer expected = new Buffer().write(before).write(body);
        assertThat(sink.readByteArray()).isEqualTo(expected.readByteArray());
    }

    @Test
    void anApplicationReadingInRandomPiecesShowsTheObserverEveryByteOnceInOrder() throws IOException {
        for (long seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            byte[] body = bytes(random, random.nextInt(40_000));
            Recording observer = new Recording();
            BufferedSource app = Okio.buffer(new ObservedSource(new Buffer().write(body), observer));
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            while (!app.exhausted()) {
                long piece = Math.min(app.buffer().size(), 1 + random.nextInt(5_000));
                if (piece == 0) {
                    app.require(1);
                    continue;
                }
                read.write(app.readByteArray(piece));
            }
            app.close();

            assertThat(read.toByteArray())
                    .as("seed %s: the application's bytes", seed)
                    .isEqualTo(body);
            assertThat(observer.seen.toByteArray())
                    .as("seed %s: the observer's", seed)
                    .isEqualTo(body);
            assertThat(observer.ends).isEqualTo(1);
            assertThat(observer.closes).isEqualTo(1);
        }
    }

    @Test
    void anObserverThatThrowsNeverBreaksTheApplicationsRead() throws IOException {
        byte[] body = bytes(new Random(3), 20_000);
        BodyObserver failing = new Recording() {
            @Override
            public void onBytes(byte[] chunk, int offset, int length) {
                throw new IllegalStateException("observer fault");
            }
        };
        BufferedSource app = Okio.buffer(new ObservedSource(new Buffer().write(body), failing));

        assertThat(app.readByteArray()).isEqualTo(body);
    }
}
