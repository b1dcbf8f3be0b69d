package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A bucket mirroring a provider's limit absorbs the delay between admission and arrival. */
class TransitAllowanceTest {

    private static Bucket mirrorOf(long perSecond, FakeClock clock) {
        LimitSpec spec = LimitSpec.builder("provider-rps", Dimension.REQUESTS, perSecond)
                .window(Duration.ofSeconds(1))
                .mirrorsProvider(true)
                .build();
        return Limit.of(spec, clock::nanoTime, clock.nanoTime(), clock.epochMillis(), Duration.ofMinutes(1))
                .buckets()
                .iterator()
                .next();
    }

    @Test
    void callsAdmittedAtSaturationStillFitTheProvidersBucketAfterRandomDelays() {
        FakeClock clock = new FakeClock();
        Bucket mirror = mirrorOf(10, clock);
        List<Long> admitted = new ArrayList<>();
        for (int ms = 0; ms < 20_000; ms++) {
            while (mirror.room(clock.nanoTime(), clock.epochMillis()) >= 1) {
                mirror.reserve(1, clock.nanoTime(), clock.epochMillis());
                admitted.add(clock.nanoTime());
            }
            clock.advance(Duration.ofMillis(1));
        }
        // the rate is the provider's: 10 to start with, then 10 a second
        assertThat(admitted).hasSizeBetween(205, 210);

        Random random = new Random(42);
        List<Long> arrivals = new ArrayList<>();
        for (long t : admitted) {
            arrivals.add(t + (long) (random.nextDouble() * TokenBucket.TRANSIT_ALLOWANCE_NANOS));
        }
        arrivals.sort(null);
        // the provider's own bucket: 10 a second, burst 10, starts full
        double level = 10;
        long last = arrivals.get(0);
        int refused = 0;
        for (long t : arrivals) {
            level = Math.min(10, level + (t - last) * 10 / 1e9);
            last = t;
            if (level + 1e-9 >= 1) {
                level -= 1;
            } else {
                refused++;
            }
        }
        assertThat(refused).isZero();
    }

    @Test
    void aFullMirrorStillAdmitsACallOfTheWholeCapacity() {
        FakeClock clock = new FakeClock();
        Bucket mirror = mirrorOf(10, clock);
        mirror.reserve(10, clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofSeconds(5));
        assertThat(mirror.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(10);
        assertThat(mirror.nanosUntilRoom(10, clock.nanoTime(), clock.epochMillis()))
                .isZero();
        mirror.reserve(10, clock.nanoTime(), clock.epochMillis());
        // back at the ceiling (7.5 of 10) in 1 s, when the whole capacity fits again
        assertThat(mirror.nanosUntilRoom(10, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(1_000_000_000L);
    }

    @Test
    void aCallOfAlmostTheWholeCapacityStillWaitsBesideAGuaranteedReserve() {
        FakeClock clock = new FakeClock();
        LimitSpec spec = LimitSpec.builder("provider-tps", Dimension.TOTAL_TOKENS, 100)
                .window(Duration.ofSeconds(1))
                .mirrorsProvider(true)
                .build();
        Bucket mirror = Limit.of(
                        spec,
                        clock::nanoTime,
                        clock.nanoTime(),
                        clock.epochMillis(),
                        Duration.ofMinutes(1),
                        Guarantees.of(Map.of("g", 0.1)))
                .buckets()
                .iterator()
                .next();
        // 85 fits beside the guaranteed tenant's 10, though it is more than the ceiling of 75
        assertThat(mirror.nanosUntilRoomFor(-1, 85, clock.nanoTime(), clock.epochMillis()))
                .isZero();
        mirror.reserve(85, clock.nanoTime(), clock.epochMillis());
        long wait = mirror.nanosUntilRoomFor(-1, 85, clock.nanoTime(), clock.epochMillis());
        assertThat(wait).isNotEqualTo(Bucket.NEVER).isBetween(500_000_000L, 2_000_000_000L);
        clock.advance(Duration.ofNanos(wait));
        assertThat(mirror.roomFor(-1, clock.nanoTime(), clock.epochMillis())).isGreaterThanOrEqualTo(85);
    }
}
