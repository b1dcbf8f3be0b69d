package dev.sluice.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.Cleaner;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DroppedBodiesTest {

    @Test
    void aBodyClosedByItsCallerIsReleasedOnceAndNotAgainWhenItGoes() throws Exception {
        AtomicInteger released = new AtomicInteger();
        Object body = new Object();
        Cleaner.Cleanable handle = DroppedBodies.watch(body, released::incrementAndGet);

        handle.clean();
        handle.clean();
        body = null;
        collectUntil(() -> false, 300);

        assertThat(released).hasValue(1);
    }

    @Test
    void aBodyDroppedWithoutACloseIsReleasedOnceUnreachable() throws Exception {
        AtomicInteger released = new AtomicInteger();
        Object body = new Object();
        DroppedBodies.watch(body, released::incrementAndGet);
        assertThat(released).hasValue(0);

        body = null;
        collectUntil(() -> released.get() > 0, 10_000);

        assertThat(released).hasValue(1);
    }

    /** Collects garbage until the condition holds or the time is up. */
    private static void collectUntil(java.util.function.BooleanSupplier done, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!done.getAsBoolean() && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(20);
        }
    }
}
