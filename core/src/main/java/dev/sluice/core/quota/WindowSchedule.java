package dev.sluice.core.quota;

import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/** Where the windows of a windowed limit start: fixed lengths aligned on the epoch, or daily resets. */
abstract class WindowSchedule {

    /** Start (epoch ms) of the window containing {@code nowMillis}. */
    abstract long windowStart(long nowMillis);

    /** Start (epoch ms) of the window after the one containing {@code nowMillis}. */
    abstract long nextWindowStart(long nowMillis);

    static WindowSchedule fixed(long windowMillis) {
        return new Fixed(windowMillis);
    }

    static WindowSchedule daily(LocalTime resetAt, ZoneId zone) {
        return new Daily(resetAt, zone);
    }

    /** Windows of a fixed length aligned on the epoch: minute windows start on the minute. */
    private static final class Fixed extends WindowSchedule {
        private final long windowMillis;

        Fixed(long windowMillis) {
            this.windowMillis = windowMillis;
        }

        @Override
        long windowStart(long nowMillis) {
            return Math.floorDiv(nowMillis, windowMillis) * windowMillis;
        }

        @Override
        long nextWindowStart(long nowMillis) {
            return windowStart(nowMillis) + windowMillis;
        }
    }

    /**
     * One window per day that resets at a local time in a zone (midnight Pacific for Gemini's
     * per-day quotas). Days around DST changes are 23 or 25 hours long, as the provider's are.
     */
    private static final class Daily extends WindowSchedule {
        private final LocalTime resetAt;
        private final ZoneId zone;
        private long cachedStart = Long.MIN_VALUE;
        private long cachedNext = Long.MIN_VALUE;

        Daily(LocalTime resetAt, ZoneId zone) {
            this.resetAt = resetAt;
            this.zone = zone;
        }

        @Override
        long windowStart(long nowMillis) {
            refresh(nowMillis);
            return cachedStart;
        }

        @Override
        long nextWindowStart(long nowMillis) {
            refresh(nowMillis);
            return cachedNext;
        }

        private void refresh(long nowMillis) {
            if (nowMillis >= cachedStart && nowMillis < cachedNext) {
                return;
            }
            ZonedDateTime now = Instant.ofEpochMilli(nowMillis).atZone(zone);
            ZonedDateTime todayReset = now.toLocalDate().atTime(resetAt).atZone(zone);
            ZonedDateTime start = now.isBefore(todayReset) ? todayReset.minusDays(1) : todayReset;
            ZonedDateTime next = start.plusDays(1);
            cachedStart = start.toInstant().toEpochMilli();
            cachedNext = next.toInstant().toEpochMilli();
        }
    }
}
