package dev.sluice.simulator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand. */
public final class FakeClock extends Clock {
    private volatile Instant now;

    public FakeClock(Instant start) {
        this.now = start;
    }

    public FakeClock() {
        this(Instant.parse("2026-11-29T10:00:00Z"));
    }

    public void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
