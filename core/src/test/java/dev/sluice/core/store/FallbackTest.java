package dev.sluice.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import org.junit.jupiter.api.Test;

/** The store's switch between shared buckets and local shares of capacity / N. */
class FallbackTest {

    private static final FleetBackend BACKEND = new FleetBackend() {
        @Override
        public SyncReply sync(SyncRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long calls() {
            return 0;
        }

        @Override
        public String describe() {
            return "test";
        }

        @Override
        public void close() {}
    };

    @Test
    void eachSwitchIsOneEpochChangeCountedOnce() {
        Fallback f = new Fallback(BACKEND, 0);
        int shared = f.epoch();
        assertThat(f.epochOfNewBucket()).isEqualTo(shared);

        assertThat(f.enter("down", 0)).isTrue();
        assertThat(f.enter("still down", 1)).as("already in a fallback").isFalse();
        assertThat(f.active()).isTrue();
        assertThat(f.epoch()).isNotEqualTo(shared);
        assertThat(f.epochOfNewBucket())
                .as("a bucket born in a fallback starts in it")
                .isNotEqualTo(f.epoch());

        assertThat(f.recover(Collections.emptyList(), 2, 0)).isTrue();
        assertThat(f.recover(Collections.emptyList(), 3, 0)).as("already back").isFalse();
        assertThat(f.active()).isFalse();
        assertThat(f.fallbacks()).isEqualTo(1);
        assertThat(f.recoveries()).isEqualTo(1);
    }

    @Test
    void nIsConfiguredElseTheInstancesSeenAlive() {
        Fallback learned = new Fallback(BACKEND, 0);
        assertThat(learned.instances()).as("nobody seen yet: this JVM alone").isEqualTo(1);
        learned.heard(4);
        assertThat(learned.instances()).isEqualTo(4);

        Fallback configured = new Fallback(BACKEND, 3);
        configured.heard(4);
        assertThat(configured.instances()).isEqualTo(3);
    }
}
