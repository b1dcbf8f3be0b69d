package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.CalendarPeriod;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** Where calendar periods start and end, across zones, offsets of half an hour, and DST changes. */
class CalendarPeriodScheduleTest {

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    private static String start(WindowSchedule s, String now) {
        return Instant.ofEpochMilli(s.windowStart(at(now))).toString();
    }

    private static String next(WindowSchedule s, String now) {
        return Instant.ofEpochMilli(s.nextWindowStart(at(now))).toString();
    }

    @Test
    void hoursStartAtTheResetMinuteOfTheZonesOwnHours() {
        // India is UTC+5:30: its hours start at half past in UTC
        WindowSchedule s = WindowSchedule.calendar(CalendarPeriod.HOUR, LocalTime.MIDNIGHT, ZoneId.of("Asia/Kolkata"));
        assertThat(start(s, "2026-12-01T10:29:59Z")).isEqualTo("2026-12-01T09:30:00Z");
        assertThat(start(s, "2026-12-01T10:30:00Z")).isEqualTo("2026-12-01T10:30:00Z");
        assertThat(next(s, "2026-12-01T10:30:00Z")).isEqualTo("2026-12-01T11:30:00Z");

        WindowSchedule quarterPast =
                WindowSchedule.calendar(CalendarPeriod.HOUR, LocalTime.of(0, 15), ZoneId.of("UTC"));
        assertThat(start(quarterPast, "2026-12-01T10:10:00Z")).isEqualTo("2026-12-01T09:15:00Z");
    }

    @Test
    void anHourIsAnHourAcrossTheNightDaylightSavingEnds() {
        // 2026-10-25 03:00 CEST becomes 02:00 CET: the local hour 02:00-03:00 happens twice
        WindowSchedule s = WindowSchedule.calendar(CalendarPeriod.HOUR, LocalTime.MIDNIGHT, ZoneId.of("Europe/Paris"));
        assertThat(start(s, "2026-10-25T00:30:00Z")).isEqualTo("2026-10-25T00:00:00Z"); // 02:30 CEST
        assertThat(next(s, "2026-10-25T00:30:00Z")).isEqualTo("2026-10-25T01:00:00Z");
        assertThat(start(s, "2026-10-25T01:30:00Z")).isEqualTo("2026-10-25T01:00:00Z"); // 02:30 CET
        assertThat(next(s, "2026-10-25T01:30:00Z")).isEqualTo("2026-10-25T02:00:00Z");
    }

    @Test
    void daysResetAtTheLocalTimeAndLast23Or25HoursAroundDst() {
        WindowSchedule s = WindowSchedule.calendar(CalendarPeriod.DAY, LocalTime.of(6, 0), ZoneId.of("Europe/Paris"));
        // 06:00 in Paris, winter: 05:00 UTC
        assertThat(start(s, "2026-12-01T04:59:59Z")).isEqualTo("2026-11-30T05:00:00Z");
        assertThat(start(s, "2026-12-01T05:00:00Z")).isEqualTo("2026-12-01T05:00:00Z");
        // the day that holds 2026-03-29 (spring forward) lasts 23 hours
        assertThat(start(s, "2026-03-29T12:00:00Z")).isEqualTo("2026-03-29T04:00:00Z");
        assertThat(start(s, "2026-03-28T12:00:00Z")).isEqualTo("2026-03-28T05:00:00Z");
        assertThat(next(s, "2026-03-28T12:00:00Z")).isEqualTo("2026-03-29T04:00:00Z");
    }

    @Test
    void weeksStartOnMonday() {
        WindowSchedule s = WindowSchedule.calendar(CalendarPeriod.WEEK, LocalTime.MIDNIGHT, ZoneId.of("UTC"));
        // 2026-12-01 is a Tuesday; 2026-11-30 the Monday before
        assertThat(start(s, "2026-12-01T10:00:00Z")).isEqualTo("2026-11-30T00:00:00Z");
        assertThat(next(s, "2026-12-01T10:00:00Z")).isEqualTo("2026-12-07T00:00:00Z");
        assertThat(start(s, "2026-12-06T23:59:59Z")).isEqualTo("2026-11-30T00:00:00Z");
        assertThat(start(s, "2026-12-07T00:00:00Z")).isEqualTo("2026-12-07T00:00:00Z");
    }

    @Test
    void aWeekBeforeItsResetTimeOnMondayIsStillTheWeekBefore() {
        WindowSchedule s =
                WindowSchedule.calendar(CalendarPeriod.WEEK, LocalTime.of(9, 0), ZoneId.of("America/New_York"));
        // Monday 2026-11-30 08:00 in New York (13:00 UTC) is before the 09:00 reset
        assertThat(start(s, "2026-11-30T13:00:00Z")).isEqualTo("2026-11-23T14:00:00Z");
        assertThat(start(s, "2026-11-30T14:00:00Z")).isEqualTo("2026-11-30T14:00:00Z");
        // the week of the autumn change (2026-11-01) is 7 days and 1 hour long
        assertThat(start(s, "2026-11-02T15:00:00Z")).isEqualTo("2026-11-02T14:00:00Z");
        assertThat(start(s, "2026-10-30T15:00:00Z")).isEqualTo("2026-10-26T13:00:00Z");
    }

    @Test
    void monthsStartOnTheFirstAndLast28To31Days() {
        WindowSchedule s =
                WindowSchedule.calendar(CalendarPeriod.MONTH, LocalTime.MIDNIGHT, ZoneId.of("America/Los_Angeles"));
        // 2028 is a leap year: February has 29 days; midnight Pacific is 08:00 UTC in winter
        assertThat(start(s, "2028-02-15T00:00:00Z")).isEqualTo("2028-02-01T08:00:00Z");
        assertThat(next(s, "2028-02-15T00:00:00Z")).isEqualTo("2028-03-01T08:00:00Z");
        // March 2026 holds the spring change: it starts at 08:00 UTC and ends at 07:00 UTC
        assertThat(start(s, "2026-03-20T00:00:00Z")).isEqualTo("2026-03-01T08:00:00Z");
        assertThat(next(s, "2026-03-20T00:00:00Z")).isEqualTo("2026-04-01T07:00:00Z");
        // the last instant of a month still belongs to it
        assertThat(start(s, "2026-12-01T07:59:59.999Z")).isEqualTo("2026-11-01T07:00:00Z");
        assertThat(start(s, "2026-12-01T08:00:00Z")).isEqualTo("2026-12-01T08:00:00Z");
    }

    @Test
    void aMonthlyBudgetInAWindowBucketComesBackOnTheFirst() {
        dev.sluice.core.FakeClock clock = new dev.sluice.core.FakeClock(Instant.parse("2026-11-30T22:00:00Z"));
        Limit limit = Limit.of(
                LimitSpec.builder("spend.month", dev.sluice.config.Dimension.SPEND, 1_000)
                        .calendar(CalendarPeriod.MONTH, LocalTime.MIDNIGHT, ZoneId.of("Europe/Paris"))
                        .build(),
                clock::nanoTime,
                clock.nanoTime(),
                clock.epochMillis(),
                java.time.Duration.ofMinutes(10));
        Bucket b = limit.buckets().iterator().next();
        b.reserve(1_000, clock.nanoTime(), clock.epochMillis());
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isZero();
        // 2026-12-01 00:00 in Paris is 2026-11-30 23:00 UTC
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(java.time.Duration.ofHours(1).toNanos());
        clock.advance(java.time.Duration.ofHours(1));
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(1_000);
    }
}
