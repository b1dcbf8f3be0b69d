package dev.sluice.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand; monotonic and wall time move together. Thread-safe. */
public final class FakeClock implements Clock {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final long epochOffsetMillis;

    public FakeClock() {
        this(Instant.parse("2026-11-29T10:00:00Z"));
    }

    public FakeClock(Instant start) {
        this.epochOffsetMillis = start.toEpochMilli() - nanos.get() / 1_000_000;
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public long epochMillis() {
        return epochOffsetMillis + nanos.get() / 1_000_000;
    }

    /** The wall-clock time that corresponded to a monotonic reading of this clock. */
    public long epochMillisAt(long nanoTime) {
        return epochOffsetMillis + nanoTime / 1_000_000;
    }

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    public void advanceNanos(long n) {
        nanos.addAndGet(n);
    }
}
