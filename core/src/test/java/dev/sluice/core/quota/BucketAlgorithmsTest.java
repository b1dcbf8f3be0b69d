package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BucketAlgorithmsTest {

    private static Bucket bucketOf(LimitSpec spec, FakeClock clock) {
        return Limit.of(spec, clock::nanoTime, clock.nanoTime(), clock.epochMillis(), Duration.ofMinutes(1))
                .buckets()
                .iterator()
                .next();
    }

    @Test
    void aTokenBucketSaysHowLongUntilADemandFits() {
        FakeClock clock = new FakeClock();
        Bucket b = bucketOf(LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 6_000, Duration.ofMinutes(1)), clock);
        b.reserve(6_000, clock.nanoTime(), clock.epochMillis());
        // 100 tokens per second come back
        assertThat(b.nanosUntilRoom(250, clock.nanoTime(), clock.epochMillis())).isEqualTo(2_500_000_000L);
        assertThat(b.nanosUntilRoom(6_001, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(Bucket.NEVER);
        clock.advance(Duration.ofMillis(2_500));
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(250);
    }

    @Test
    void aTokenBucketNeverHoldsMoreThanItsCapacity() {
        FakeClock clock = new FakeClock();
        Bucket b = bucketOf(LimitSpec.perWindow("rpm", Dimension.REQUESTS, 10, Duration.ofSeconds(1)), clock);
        clock.advance(Duration.ofHours(1));
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(10);
        long w = b.reserve(4, clock.nanoTime(), clock.epochMillis());
        b.settle(4, 0, w, clock.nanoTime(), clock.epochMillis());
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(10);
    }

    /**
     * A refund after the bucket refilled to full gives nothing back: the refill made up the unused
     * part already, and the provider, which counted only what the call used, has no more room.
     */
    @Test
    void aRefundAfterTheBucketRefilledGivesNothingBack() {
        FakeClock clock = new FakeClock();
        Bucket b = bucketOf(LimitSpec.perWindow("org", Dimension.TOTAL_TOKENS, 10_000, Duration.ofSeconds(10)), clock);
        long w = b.reserve(479, clock.nanoTime(), 0);
        clock.advance(Duration.ofSeconds(1)); // 1,000 tokens refilled: full again
        b.reserve(10_000, clock.nanoTime(), 0);
        b.settle(479, 0, w, clock.nanoTime(), 0); // the first call used nothing
        assertThat(b.room(clock.nanoTime(), 0)).isZero();
    }

    /** Far from full, the refill made up nothing of the unused part: all of it comes back. */
    @Test
    void aRefundWhileTheBucketIsLowGivesBackAllThatWasNotUsed() {
        FakeClock clock = new FakeClock();
        Bucket b = bucketOf(LimitSpec.perWindow("org", Dimension.TOTAL_TOKENS, 10_000, Duration.ofSeconds(10)), clock);
        b.reserve(9_000, clock.nanoTime(), 0);
        long w = b.reserve(800, clock.nanoTime(), 0); // 200 left
        clock.advance(Duration.ofMillis(500)); // 700
        b.settle(800, 300, w, clock.nanoTime(), 0);
        assertThat(b.room(clock.nanoTime(), 0)).isEqualTo(1_200);
    }

    /** Between the two: the part the level would have lost at the ceiling is not given back. */
    @Test
    void aRefundGivesBackWhatTheCeilingWouldNotHaveCutOff() {
        FakeClock clock = new FakeClock();
        Bucket b = bucketOf(LimitSpec.perWindow("org", Dimension.TOTAL_TOKENS, 10_000, Duration.ofSeconds(10)), clock);
        b.reserve(5_000, clock.nanoTime(), 0);
        long w = b.reserve(1_000, clock.nanoTime(), 0); // 4,000; without this call, 5,000
        clock.advance(Duration.ofMillis(5_600)); // 9,600; without it, full since 5 s
        b.reserve(2_000, clock.nanoTime(), 0); // 7,600; without it, 8,000
        clock.advance(Duration.ofMillis(100)); // 7,700; without it, 8,100
        b.settle(1_000, 0, w, clock.nanoTime(), 0);
        assertThat(b.room(clock.nanoTime(), 0)).isEqualTo(8_100);
    }

    /**
     * Random calls that reserve more than they use, settled in any order, against a bucket that is
     * charged only what each call used, when it was admitted (the provider's view): the settled
     * bucket never has more room than that one, and once every call is settled it has the same,
     * but for the few walks whose history outgrew what a bucket keeps of it.
     */
    @Test
    void refundsGiveBackExactlyWhatABucketChargedOnlyWhatCallsUsedWouldHave() {
        SplittableRandom random = new SplittableRandom(3);
        LimitSpec spec = LimitSpec.perWindow("org", Dimension.TOTAL_TOKENS, 10_000, Duration.ofSeconds(10));
        int walks = 2_000;
        int endedShort = 0;
        for (int walk = 0; walk < walks; walk++) {
            FakeClock clock = new FakeClock();
            Bucket governed = bucketOf(spec, clock);
            Bucket provider = bucketOf(spec, clock);
            List<long[]> open = new ArrayList<>(); // reserved, used, what the take returned
            for (int step = 0; step < 200; step++) {
                long now = clock.nanoTime();
                int move = random.nextInt(3);
                if (move == 0 && governed.room(now, 0) > 0) {
                    long reserved = 1 + random.nextLong(Math.min(3_000, governed.room(now, 0)));
                    long used = random.nextLong(reserved + 1);
                    long taken = governed.reserve(reserved, now, 0);
                    provider.reserve(used, now, 0);
                    open.add(new long[] {reserved, used, taken});
                } else if (move == 1 && !open.isEmpty()) {
                    long[] call = open.remove(random.nextInt(open.size()));
                    governed.settle(call[0], call[1], call[2], now, 0);
                } else {
                    clock.advanceNanos(random.nextLong(400_000_000L));
                }
                long t = clock.nanoTime();
                assertThat(governed.room(t, 0))
                        .as("walk %d step %d", walk, step)
                        .isLessThanOrEqualTo(provider.room(t, 0));
            }
            long t = clock.nanoTime();
            for (long[] call : open) {
                governed.settle(call[0], call[1], call[2], t, 0);
            }
            assertThat(governed.room(t, 0)).isLessThanOrEqualTo(provider.room(t, 0));
            if (governed.room(t, 0) < provider.room(t, 0) - 1) { // a token of rounding
                endedShort++;
            }
        }
        assertThat(endedShort)
                .as("walks that ended short of the provider's room")
                .isLessThan(walks / 200);
    }

    /** A call admitted just before the boundary would reach the provider in its next window. */
    @Test
    void aWindowMirroringAProviderStopsAdmittingJustBeforeItEnds() {
        FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:15:59.400Z"));
        Bucket mirror = bucketOf(
                LimitSpec.builder("gw-key", Dimension.REQUESTS, 600)
                        .window(Duration.ofMinutes(1))
                        .algorithm(Algorithm.FIXED_WINDOW)
                        .mirrorsProvider(true)
                        .build(),
                clock);
        Bucket own = bucketOf(
                LimitSpec.builder("own", Dimension.REQUESTS, 600)
                        .window(Duration.ofMinutes(1))
                        .algorithm(Algorithm.FIXED_WINDOW)
                        .build(),
                clock);
        assertThat(mirror.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(600);
        clock.advance(Duration.ofMillis(100)); // 500 ms before 10:16:00
        assertThat(mirror.room(clock.nanoTime(), clock.epochMillis())).isZero();
        assertThat(mirror.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(500_000_000L);
        assertThat(own.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(600);
        clock.advance(Duration.ofMillis(500));
        assertThat(mirror.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis()))
                .isZero();
        assertThat(mirror.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(600);

        FakeClock fast = new FakeClock(Instant.parse("2026-11-29T10:15:01.850Z"));
        Bucket twoSeconds = bucketOf(
                LimitSpec.builder("gw-2s", Dimension.REQUESTS, 9)
                        .window(Duration.ofSeconds(2))
                        .algorithm(Algorithm.FIXED_WINDOW)
                        .mirrorsProvider(true)
                        .build(),
                fast);
        // a tenth of a short window: 200 ms
        assertThat(twoSeconds.room(fast.nanoTime(), fast.epochMillis())).isZero();
        fast.advance(Duration.ofMillis(150));
        assertThat(twoSeconds.room(fast.nanoTime(), fast.epochMillis())).isEqualTo(9);
    }

    @Test
    void fixedWindowsAlignOnTheEpochAndRefundOnlyWithinTheirWindow() {
        FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:15:59.500Z"));
        Bucket b = bucketOf(
                LimitSpec.builder("gw-key", Dimension.REQUESTS, 600)
                        .window(Duration.ofMinutes(1))
                        .algorithm(Algorithm.FIXED_WINDOW)
                        .build(),
                clock);
        long window = b.reserve(600, clock.nanoTime(), clock.epochMillis());
        assertThat(window).isEqualTo(Instant.parse("2026-11-29T10:15:00Z").toEpochMilli());
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis())).isEqualTo(500_000_000L);
        clock.advance(Duration.ofMillis(500));
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(600);
        b.reserve(10, clock.nanoTime(), clock.epochMillis());
        // a refund for the previous window does not give this window anything
        b.settle(600, 0, window, clock.nanoTime(), clock.epochMillis());
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(590);
    }

    @Test
    void aDailyResetHappensAtMidnightPacificAcrossDaylightSavingChanges() {
        // 2026-11-01 is the day US daylight saving time ends: that day lasts 25 hours in Los Angeles
        FakeClock clock = new FakeClock(Instant.parse("2026-11-01T06:59:00Z")); // 23:59 PDT, Oct 31
        Bucket b = bucketOf(
                LimitSpec.builder("rpd", Dimension.REQUESTS, 100)
                        .dailyReset(LocalTime.MIDNIGHT, ZoneId.of("America/Los_Angeles"))
                        .build(),
                clock);
        b.reserve(100, clock.nanoTime(), clock.epochMillis());
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(Duration.ofMinutes(1).toNanos());
        clock.advance(Duration.ofMinutes(1)); // midnight PDT: new day
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(100);
        b.reserve(100, clock.nanoTime(), clock.epochMillis());
        // the next reset is 25 hours later (midnight PST)
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(Duration.ofHours(25).toNanos());
    }

    @Test
    void concurrencyComesBackOnlyOnRelease() {
        FakeClock clock = new FakeClock();
        Bucket b = bucketOf(LimitSpec.builder("conc", Dimension.CONCURRENCY, 2).build(), clock);
        b.reserve(1, clock.nanoTime(), clock.epochMillis());
        b.reserve(1, clock.nanoTime(), clock.epochMillis());
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis())).isEqualTo(Bucket.ON_RELEASE);
        clock.advance(Duration.ofHours(1));
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isZero();
        b.settle(1, 0, 0, clock.nanoTime(), clock.epochMillis());
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(1);
    }

    @Test
    void theProvidersLowerRemainingWinsOverSluicesView() {
        FakeClock clock = new FakeClock();
        Bucket b = bucketOf(LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 10_000, Duration.ofMinutes(1)), clock);
        b.lowerRoomTo(2_000, clock.nanoTime(), clock.epochMillis());
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(2_000);
        b.lowerRoomTo(5_000, clock.nanoTime(), clock.epochMillis());
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(2_000);
    }
}
