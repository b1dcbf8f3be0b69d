package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.bucketOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConcurrencyBucketTest {

    private final FakeClock clock = new FakeClock();

    private long room(Bucket b) {
        return b.room(clock.nanoTime(), clock.epochMillis());
    }

    private Bucket slots(long capacity) {
        return bucketOf(
                LimitSpec.builder("in-flight", Dimension.CONCURRENCY, capacity).build(), clock);
    }

    @Test
    void aSlotComesBackWhenItsCallEndsAndNeverWithTime() {
        Bucket b = slots(2);
        b.reserve(1, clock.nanoTime(), clock.epochMillis());
        b.reserve(1, clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofHours(1));
        assertThat(room(b)).isZero();
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis())).isEqualTo(Bucket.ON_RELEASE);
        b.settle(1, 0, 0, clock.nanoTime(), clock.epochMillis()); // released: the slot is no longer used
        assertThat(room(b)).isEqualTo(1);
        assertThat(b.nanosUntilRoom(1, clock.nanoTime(), clock.epochMillis())).isZero();
    }

    @Test
    void aCallNeedingMoreSlotsThanTheLimitHasNeverFits() {
        assertThat(slots(2).nanosUntilRoom(3, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(Bucket.NEVER);
    }

    @Test
    void aNewCapacityAppliesToTheCallsInFlight() {
        Bucket b = slots(2);
        b.reserve(2, clock.nanoTime(), clock.epochMillis());
        b.limit().setCapacity(3, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(1);
        b.limit().setCapacity(1, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(-1);
    }

    @Test
    void releasingMoreThanIsHeldNeverMakesMoreSlotsThanTheLimit() {
        Bucket b = slots(2);
        b.reserve(1, clock.nanoTime(), clock.epochMillis());
        b.giveBack(5, 0, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(2);
    }

    @Test
    void aProvidersFigureNeverChangesTheSlots() {
        Bucket b = slots(2);
        b.lowerRoomTo(0, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(2);
    }

    @Test
    void aCallBesideTheOtherTenantsReservedSlotsWaitsForARelease() {
        Bucket b = bucketOf(
                LimitSpec.builder("in-flight", Dimension.CONCURRENCY, 10).build(),
                clock,
                Guarantees.of(Map.of("search", 0.2)));
        b.reserve(8, clock.nanoTime(), clock.epochMillis());
        assertThat(b.roomFor(-1, clock.nanoTime(), clock.epochMillis())).isZero();
        assertThat(b.nanosUntilRoomFor(-1, 1, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(Bucket.ON_RELEASE);
        assertThat(b.nanosUntilRoomFor(0, 2, clock.nanoTime(), clock.epochMillis()))
                .isZero();
    }
}
