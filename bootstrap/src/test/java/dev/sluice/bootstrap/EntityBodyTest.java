package dev.sluice.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The body tap HttpClient 4's and 5's entities are made of, over a client entity of the test's own. */
class EntityBodyTest {

    private static final byte[] BODY = "{\"usage\":{\"total_tokens\":3}}".getBytes(StandardCharsets.UTF_8);

    /** A client's entity: one stream of the body; counts its closes and drains. */
    private static final class ClientEntity implements EntityBody.Source {
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger closedUnopened = new AtomicInteger();
        final CountDownLatch drained = new CountDownLatch(1);
        volatile String drainThread;

        @Override
        public InputStream open() {
            opened.incrementAndGet();
            return new ByteArrayInputStream(BODY);
        }

        @Override
        public void closeUnopened() {
            closedUnopened.incrementAndGet();
        }

        @Override
        public void drain() {
            drainThread = Thread.currentThread().getName();
            drained.countDown();
        }
    }

    /** Counts what the governor is told. */
    private static final class Told implements BodyObserver {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final AtomicInteger ends = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public synchronized void onBytes(byte[] chunk, int offset, int length) {
            bytes.write(chunk, offset, length);
        }

        @Override
        public void onEnd() {
            ends.incrementAndGet();
        }

        @Override
        public void onFailure(Throwable failure) {}

        @Override
        public void onClose() {
            closes.incrementAndGet();
        }
    }

    @Test
    void theBodyReadThroughItsStreamIsToldToTheObserverAndItsCloseOnce() throws IOException {
        ClientEntity entity = new ClientEntity();
        Told told = new Told();
        Object view = new Object();
        EntityBody body = new EntityBody(view, entity, told, "drain");

        InputStream in = body.content(view);
        assertThat(body.content(view)).isSameAs(in); // opened once
        assertThat(in.readAllBytes()).isEqualTo(BODY);
        in.close();
        body.close();

        assertThat(entity.opened).hasValue(1);
        assertThat(told.bytes.toByteArray()).isEqualTo(BODY);
        assertThat(told.ends).hasValue(1);
        assertThat(told.closes).hasValue(1);
        assertThat(entity.drained.getCount())
                .as("a body its caller closed is not drained")
                .isEqualTo(1);
    }

    @Test
    void writingTheBodyOutReadsItThroughTheTapAndClosesIt() throws IOException {
        Told told = new Told();
        Object view = new Object();
        EntityBody body = new EntityBody(view, new ClientEntity(), told, "drain");
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        body.writeTo(out, view);

        assertThat(out.toByteArray()).isEqualTo(BODY);
        assertThat(told.ends).hasValue(1);
        assertThat(told.closes).hasValue(1);
    }

    @Test
    void closingABodyNobodyOpenedClosesItAsTheClientWould() throws IOException {
        ClientEntity entity = new ClientEntity();
        Told told = new Told();
        EntityBody body = new EntityBody(new Object(), entity, told, "drain");

        body.close();

        assertThat(entity.opened).hasValue(0);
        assertThat(entity.closedUnopened).hasValue(1);
        assertThat(told.closes).hasValue(1);
    }

    /** The caller closed the response around it: the governor hears it, and nothing is read on. */
    @Test
    void aBodyLetGoByItsCallerIsToldClosedOnceAndNotDrained() throws Exception {
        ClientEntity entity = new ClientEntity();
        Told told = new Told();
        EntityBody body = new EntityBody(new Object(), entity, told, "drain");

        body.closed();
        body.closed();

        assertThat(told.closes).hasValue(1);
        assertThat(entity.drained.await(200, TimeUnit.MILLISECONDS)).isFalse();
    }

    @Test
    void aBodyDroppedUnreadIsToldClosedAndDrainedOnAThreadOfItsOwnOnceItsViewIsUnreachable() throws Exception {
        ClientEntity entity = new ClientEntity();
        Told told = new Told();
        watchADroppedView(entity, told);

        collectUntil(() -> entity.drained.getCount() == 0, 10_000);

        assertThat(told.closes).hasValue(1);
        assertThat(entity.drainThread).isEqualTo("sluice-test-dropped-body");
    }

    /** Its own frame: nothing of the view stays on the test's stack. */
    private static void watchADroppedView(ClientEntity entity, Told told) {
        new EntityBody(new Object(), entity, told, "sluice-test-dropped-body");
    }

    /** Its stream keeps the view reachable: a body being read alone is not released as dropped. */
    @Test
    void aStreamBeingReadKeepsItsViewFromBeingReleased() throws Exception {
        ClientEntity entity = new ClientEntity();
        Told told = new Told();
        InputStream in = streamOfADroppedView(entity, told);

        collectUntil(() -> told.closes.get() > 0, 500);

        assertThat(told.closes).hasValue(0);
        assertThat(in.readAllBytes()).isEqualTo(BODY);
        in.close();
        assertThat(told.closes).hasValue(1);
    }

    private static InputStream streamOfADroppedView(ClientEntity entity, Told told) throws IOException {
        Object view = new Object();
        return new EntityBody(view, entity, told, "drain").content(view);
    }

    private static void collectUntil(BooleanSupplier done, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!done.getAsBoolean() && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(20);
        }
    }
}
