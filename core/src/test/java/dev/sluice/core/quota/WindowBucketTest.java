package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.bucketOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WindowBucketTest {

    /** 10:15:30, the middle of a minute window. */
    private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:15:30Z"));

    private static LimitSpec.Builder perMinute(long capacity) {
        return LimitSpec.builder("rpm", Dimension.REQUESTS, capacity)
                .window(Duration.ofMinutes(1))
                .algorithm(Algorithm.FIXED_WINDOW);
    }

    private long room(Bucket b) {
        return b.room(clock.nanoTime(), clock.epochMillis());
    }

    private long reserve(Bucket b, long amount) {
        return b.reserve(amount, clock.nanoTime(), clock.epochMillis());
    }

    @Test
    void whatAWindowCountsIsGoneWhenTheNextStarts() {
        Bucket b = bucketOf(perMinute(100).build(), clock);
        reserve(b, 100);
        b.takeMore(50, clock.nanoTime(), clock.epochMillis()); // used beyond the reservation
        assertThat(room(b)).isEqualTo(-50);
        clock.advance(Duration.ofSeconds(29));
        assertThat(room(b)).isEqualTo(-50); // no refill within the window
        clock.advance(Duration.ofSeconds(1));
        assertThat(room(b)).isEqualTo(100);
    }

    @Test
    void aFullWindowWaitsUntilTheNextStarts() {
        Bucket b = bucketOf(perMinute(100).build(), clock);
        reserve(b, 100);
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis())).isEqualTo(30_000_000_000L);
        assertThat(b.nanosUntilRoom(101, clock.nanoTime(), clock.epochMillis())).isEqualTo(Bucket.NEVER);
    }

    @Test
    void aRefundWithinTheWindowGivesTheUnusedPartBack() {
        Bucket b = bucketOf(perMinute(100).build(), clock);
        long window = reserve(b, 80);
        b.settle(80, 30, window, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(70);
    }

    @Test
    void aClosingStretchIsATenthOfAMirroredWindowAndAtMostHalfASecond() {
        Bucket minute = bucketOf(perMinute(100).mirrorsProvider(true).build(), clock);
        Bucket twoSeconds = bucketOf(
                perMinute(100)
                        .window(Duration.ofSeconds(2))
                        .mirrorsProvider(true)
                        .build(),
                clock);
        Bucket own = bucketOf(perMinute(100).build(), clock);
        assertThat(((WindowBucket) minute).closingMillis(clock.epochMillis())).isEqualTo(500);
        assertThat(((WindowBucket) twoSeconds).closingMillis(clock.epochMillis()))
                .isEqualTo(200);
        assertThat(((WindowBucket) own).closingMillis(clock.epochMillis())).isZero();
    }

    @Test
    void aCallInTheClosingStretchOfAMirroredWindowWaitsForTheNext() {
        Bucket mirror = bucketOf(perMinute(100).mirrorsProvider(true).build(), clock);
        clock.advance(Duration.ofMillis(29_600)); // 400 ms before the boundary
        assertThat(room(mirror)).isZero();
        assertThat(mirror.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(400_000_000L);
        clock.advance(Duration.ofMillis(400));
        assertThat(room(mirror)).isEqualTo(100);
    }

    @Test
    void aProviderFigureOnlyEverLowersTheRoom() {
        Bucket b = bucketOf(perMinute(600).mirrorsProvider(true).build(), clock);
        b.lowerRoomTo(100, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(100);
        b.lowerRoomTo(300, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(100);
    }

    @Test
    void everyGuaranteedReserveIsFullAgainWhenTheNextWindowStarts() {
        Bucket b = bucketOf(perMinute(100).build(), clock, Guarantees.of(Map.of("search", 0.2)));
        int search = 0;
        long fromReserve = b.takeReserved(search, 20, clock.nanoTime(), clock.epochMillis());
        assertThat(fromReserve).isEqualTo(20);
        reserve(b, 20);
        assertThat(b.roomFor(-1, clock.nanoTime(), clock.epochMillis())).isEqualTo(80);
        clock.advance(Duration.ofSeconds(30));
        assertThat(b.roomFor(-1, clock.nanoTime(), clock.epochMillis())).isEqualTo(80);
        assertThat(b.roomFor(search, clock.nanoTime(), clock.epochMillis())).isEqualTo(100);
    }

    @Test
    void aRefundOfAnEarlierWindowGivesNothingBackToAReserve() {
        Bucket b = bucketOf(perMinute(100).build(), clock, Guarantees.of(Map.of("search", 0.2)));
        int search = 0;
        long first = b.takeReserved(search, 20, clock.nanoTime(), clock.epochMillis());
        long window = reserve(b, 20);
        clock.advance(Duration.ofSeconds(30)); // a new window: the reserve is full again
        long second = b.takeReserved(search, 10, clock.nanoTime(), clock.epochMillis());
        reserve(b, 10);
        b.settle(20, 0, window, search, first, clock.nanoTime(), clock.epochMillis());
        // the reserve still holds 10 of its 20: the others see 90 less those 10
        assertThat(second).isEqualTo(10);
        assertThat(b.roomFor(-1, clock.nanoTime(), clock.epochMillis())).isEqualTo(80);
    }

    @Test
    void aCallBesideTheOtherReservesWaitsForTheNextWindow() {
        Bucket b = bucketOf(perMinute(100).build(), clock, Guarantees.of(Map.of("search", 0.2)));
        reserve(b, 70);
        assertThat(b.nanosUntilRoomFor(-1, 20, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(30_000_000_000L);
        assertThat(b.nanosUntilRoomFor(-1, 81, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(Bucket.NEVER);
    }
}
