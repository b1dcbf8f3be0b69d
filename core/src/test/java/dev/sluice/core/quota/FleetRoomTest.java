package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.tokenBucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.config.StoreConfig;
import dev.sluice.core.FakeClock;
import dev.sluice.core.store.QuotaStore;
import dev.sluice.core.store.RedisServer;
import dev.sluice.core.store.redis.RedisBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a bucket whose room lives in a fleet's store knows of that store, as the governor asks it:
 * whether a short call waits for the store, what the store holds beyond this JVM's own room and
 * since when, and the room fleet-wide. Buckets are placed by a real store; where the store must
 * answer, it is a real Redis of the test's own, and this test plays the governor's lock.
 */
class FleetRoomTest {

    /** The governor as the store sees it: its lock, and one reading of the test's clock per action. */
    private static final class Host implements QuotaStore.Host {
        private final ReentrantLock lock = new ReentrantLock();
        private final FakeClock clock;

        Host(FakeClock clock) {
            this.clock = clock;
        }

        @Override
        public <T> T withLock(Locked<T> action) {
            lock.lock();
            try {
                return action.run(clock.nanoTime(), clock.epochMillis());
            } finally {
                lock.unlock();
            }
        }
    }

    private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:00Z"));
    private final Host host = new Host(clock);
    private RedisServer redis;
    private QuotaStore store;

    @AfterEach
    void stop() throws Exception {
        if (store != null) {
            store.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private QuotaStore storeAt(String url) {
        store = RedisBackend.store(StoreConfig.builder()
                .url(url)
                .instances(2)
                .leaseChunk(0)
                .timeout(Duration.ofMillis(100))
                .build());
        return store;
    }

    private Bucket placed(LimitSpec spec) {
        return QuotaFixtures.bucketOf(spec, clock, store);
    }

    /** A thousand tokens a day: Redis's own refill adds nothing whole while a test runs. */
    private static LimitSpec sharedTokensPerDay() {
        return LimitSpec.builder("tpd", Dimension.TOTAL_TOKENS, 1_000)
                .window(Duration.ofDays(1))
                .shared(true)
                .build();
    }

    private long beyondOwn(FleetRoom fleet, long sinceNanos) {
        return host.withLock((n, m) -> fleet.beyondOwn(sinceNanos, n, m));
    }

    private long asCounted(FleetRoom fleet) {
        return host.withLock(fleet::asCounted);
    }

    @Test
    void aBucketWhoseRoomIsThisJvmsAloneHasNoFleetRoom() {
        Bucket local = tokenBucket(1_000, Duration.ofMinutes(1), clock);
        assertThat(local.fleetRoom()).isNull();
        assertThat(local.isShared()).isFalse();

        storeAt("redis://127.0.0.1:1");
        Bucket unshared = placed(LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 1_000, Duration.ofMinutes(1)));
        assertThat(unshared.fleetRoom())
                .as("a limit not marked shared stays local")
                .isNull();
    }

    @Test
    void untilTheStoreHasSpokenWhatItHoldsBeyondOwnIsUnknown() {
        storeAt("redis://127.0.0.1:1"); // never attached: the store never answers
        Bucket b = placed(sharedTokensPerDay());
        FleetRoom fleet = b.fleetRoom();
        assertThat(b.isShared()).isTrue();
        assertThat(fleet.grants(clock.epochMillis()))
                .as("a short call asks the store")
                .isTrue();
        assertThat(beyondOwn(fleet, clock.nanoTime())).isEqualTo(Long.MAX_VALUE);
        assertThat(asCounted(fleet))
                .as("only this JVM's own room, nothing leased yet")
                .isEqualTo(b.roomAsCounted(clock.nanoTime(), clock.epochMillis()))
                .isZero();
    }

    /**
     * A shared bucket on a real Redis, attached to this test's lock, that took 100 at {@code
     * arrived}, once the store has answered the pass that carried the debt.
     */
    private Bucket heardOnceAfterTaking100(long arrived) throws Exception {
        redis = RedisServer.start();
        storeAt(redis.url());
        Bucket b = placed(sharedTokensPerDay());
        store.attach(host);
        host.withLock((n, m) -> b.take(100, n, m)); // a debt the store hears at its next pass
        await().atMost(Duration.ofSeconds(5)).until(() -> beyondOwn(b.fleetRoom(), arrived) != Long.MAX_VALUE);
        return b;
    }

    /** A call waits for the store only for what is said after it arrived: others give back meanwhile. */
    @Test
    void whatTheStoreSaidCountsForCallsThatArrivedBeforeItSaidIt() throws Exception {
        long arrived = clock.nanoTime();
        Bucket b = heardOnceAfterTaking100(arrived);
        FleetRoom fleet = b.fleetRoom();
        assertThat(beyondOwn(fleet, arrived)).isEqualTo(900);
        long own = host.withLock(b::roomAsCounted);
        assertThat(asCounted(fleet)).isEqualTo(own + 900);

        clock.advanceNanos(1);
        assertThat(beyondOwn(fleet, clock.nanoTime()))
                .as("a call that came after the store last spoke")
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void whileTheStoreIsAwayThisJvmsShareIsAllThereIs() throws Exception {
        long arrived = clock.nanoTime();
        FleetRoom fleet = heardOnceAfterTaking100(arrived).fleetRoom();

        redis.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.status().isFallback());
        assertThat(beyondOwn(fleet, arrived)).isZero();
        assertThat(fleet.grants(clock.epochMillis()))
                .as("the share admits locally")
                .isFalse();
        // the share of one of two JVMs, starting as full as the fleet was: 900 / 2, without the store's 900
        assertThat(asCounted(fleet)).isEqualTo(450);
    }

    /** A window mirroring a provider admits nothing in its last moments: waiting for the store would not help. */
    @Test
    void aMirroredWindowDoesNotWaitForTheStoreInItsClosingMoments() {
        storeAt("redis://127.0.0.1:1");
        Bucket b = placed(LimitSpec.builder("rpm", Dimension.REQUESTS, 60)
                .window(Duration.ofMinutes(1))
                .algorithm(Algorithm.FIXED_WINDOW)
                .mirrorsProvider(true)
                .build());
        FleetRoom fleet = b.fleetRoom();
        assertThat(fleet.grants(clock.epochMillis())).isTrue(); // the clock starts on a minute
        clock.advance(Duration.ofSeconds(59).plusMillis(999));
        assertThat(fleet.grants(clock.epochMillis())).isFalse();
        clock.advance(Duration.ofMillis(1)); // the next window
        assertThat(fleet.grants(clock.epochMillis())).isTrue();
    }
}
