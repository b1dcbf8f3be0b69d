package dev.sluice.core.quota;

import dev.sluice.config.CalendarPeriod;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;

/** Where the windows of a windowed limit start: fixed lengths aligned on the epoch, or calendar periods. */
abstract class WindowSchedule {

    /** Start (epoch ms) of the window containing {@code nowMillis}. */
    abstract long windowStart(long nowMillis);

    /** Start (epoch ms) of the window after the one containing {@code nowMillis}. */
    abstract long nextWindowStart(long nowMillis);

    static WindowSchedule fixed(long windowMillis) {
        return new Fixed(windowMillis);
    }

    static WindowSchedule daily(LocalTime resetAt, ZoneId zone) {
        return new Calendar(CalendarPeriod.DAY, resetAt, zone);
    }

    static WindowSchedule calendar(CalendarPeriod period, LocalTime resetAt, ZoneId zone) {
        return new Calendar(period, resetAt, zone);
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
     * One window per calendar period that starts at a local time in a zone: each day at
     * {@code resetAt} (midnight Pacific for Gemini's per-day quotas), each Monday, each 1st of the
     * month, or each hour at {@code resetAt}'s minute. Days around DST changes are 23 or 25 hours
     * long, as the provider's are; months are 28 to 31 days.
     */
    private static final class Calendar extends WindowSchedule {
        private final CalendarPeriod period;
        private final LocalTime resetAt;
        private final ZoneId zone;
        private long cachedStart = Long.MIN_VALUE;
        private long cachedNext = Long.MIN_VALUE;

        Calendar(CalendarPeriod period, LocalTime resetAt, ZoneId zone) {
            this.period = period;
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
            ZonedDateTime start;
            ZonedDateTime next;
            if (period == CalendarPeriod.HOUR) {
                ZonedDateTime thisHour = now.truncatedTo(ChronoUnit.HOURS)
                        .withMinute(resetAt.getMinute())
                        .withSecond(resetAt.getSecond());
                start = now.isBefore(thisHour) ? thisHour.minusHours(1) : thisHour;
                next = start.plusHours(1); // on the instant time-line: an hour is an hour across DST
            } else {
                LocalDate first = firstDay(now.toLocalDate());
                start = first.atTime(resetAt).atZone(zone);
                if (now.isBefore(start)) {
                    first = firstDay(first.minusDays(1));
                    start = first.atTime(resetAt).atZone(zone);
                }
                next = following(first).atTime(resetAt).atZone(zone);
            }
            cachedStart = start.toInstant().toEpochMilli();
            cachedNext = next.toInstant().toEpochMilli();
        }

        /** The first day of the period that contains {@code day}. */
        private LocalDate firstDay(LocalDate day) {
            switch (period) {
                case WEEK:
                    return day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
                case MONTH:
                    return day.withDayOfMonth(1);
                default:
                    return day;
            }
        }

        /** The first day of the period after the one starting on {@code first}. */
        private LocalDate following(LocalDate first) {
            switch (period) {
                case WEEK:
                    return first.plusWeeks(1);
                case MONTH:
                    return first.plusMonths(1);
                default:
                    return first.plusDays(1);
            }
        }
    }
}
