package dev.sluice.core.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.core.Governor;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.store.FleetBackend;
import dev.sluice.core.store.QuotaStore;
import dev.sluice.core.store.SyncReply;
import dev.sluice.core.store.SyncRequest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * An operator watching {@code dev.sluice:type=Store} sees a store that cannot reach its backend
 * fall back to capacity / N, under the names dashboards and the fleet tests read.
 */
class StoreBeanTest {

    /** A backend that never answers, as Redis does when it is down. */
    private static final class Unreachable implements FleetBackend {
        private final AtomicLong calls = new AtomicLong();

        @Override
        public SyncReply sync(SyncRequest request) throws IOException {
            calls.incrementAndGet();
            throw new IOException("connection refused");
        }

        @Override
        public long calls() {
            return calls.get();
        }

        @Override
        public String describe() {
            return "redis://store-test:6379";
        }

        @Override
        public void close() {
            // nothing held
        }
    }

    @Test
    void showsTheFallbackUnderTheStoreName() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.sluice:type=Store");
        LimitSpec rps = LimitSpec.builder("rps", Dimension.REQUESTS, 30)
                .window(Duration.ofSeconds(1))
                .algorithm(Algorithm.FIXED_WINDOW)
                .shared(true)
                .build();
        try (Governor g = Governor.builder()
                .store(QuotaStore.shared(new Unreachable(), 3, 0))
                .limit(rps)
                .build()) {
            server.registerMBean(new StoreBean(g.controls().store()), name); // as SluiceMBeans does for a shared store
            await().atMost(Duration.ofSeconds(5)).until(() -> (Boolean) server.getAttribute(name, "Fallback"));

            assertThat(Arrays.stream(server.getMBeanInfo(name).getAttributes()).map(MBeanAttributeInfo::getName))
                    .containsExactlyInAnyOrder(
                            "Store",
                            "Mode",
                            "Fallback",
                            "Instances",
                            "Calls",
                            "Fallbacks",
                            "Recoveries",
                            "Grants",
                            "Refusals",
                            "LeaseChunk",
                            "LastError");
            assertThat(server.getAttribute(name, "Store")).isEqualTo("redis://store-test:6379");
            assertThat(server.getAttribute(name, "Mode")).isEqualTo("fallback (capacity/3)");
            assertThat(server.getAttribute(name, "Instances")).isEqualTo(3);
            assertThat(server.getAttribute(name, "Fallbacks")).isEqualTo(1L);
            assertThat(server.getAttribute(name, "Recoveries")).isEqualTo(0L);
            assertThat((Long) server.getAttribute(name, "Calls")).isPositive();
            assertThat(server.getAttribute(name, "LeaseChunk")).isEqualTo(0.0);
            assertThat((String) server.getAttribute(name, "LastError")).contains("connection refused");
        } finally {
            server.unregisterMBean(name);
        }
    }
}
