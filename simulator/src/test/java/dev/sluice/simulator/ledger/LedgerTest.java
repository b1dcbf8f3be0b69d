package dev.sluice.simulator.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.simulator.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LedgerTest {
    private final FakeClock clock = new FakeClock();
    private final Ledger ledger = new Ledger(clock);

    private long admit(String key, String tenant, String call, Instant at) {
        return ledger.record(new Exchange(
                0,
                at,
                at,
                null,
                key,
                "org",
                tenant,
                call,
                "m",
                "/v1/x",
                false,
                200,
                Outcome.ADMITTED,
                null,
                10,
                5,
                null));
    }

    private void reject(String key, String call, Instant at) {
        ledger.record(new Exchange(
                0,
                at,
                null,
                null,
                key,
                "org",
                null,
                call,
                "m",
                "/v1/x",
                false,
                429,
                Outcome.REJECTED,
                "requests_per_1s",
                10,
                0,
                null));
    }

    @Test
    void countsAdmissionsInSlidingAndFixedWindows() {
        Instant t = Instant.parse("2026-11-29T10:00:00.500Z");
        admit("a", null, null, t);
        admit("a", null, null, t.plusMillis(400));
        admit("a", null, null, t.plusMillis(800));
        admit("a", null, null, t.plusMillis(1500));
        assertThat(ledger.maxAdmittedInAnyWindow(Duration.ofSeconds(1))).isEqualTo(3);
        assertThat(ledger.maxAdmittedInAnyFixedWindow(Duration.ofSeconds(1))).isEqualTo(2);
        assertThat(ledger.admittedInWindow(t, t.plusSeconds(1))).isEqualTo(3);
        assertThat(ledger.query().maxTokensInAnyWindow(Duration.ofSeconds(1))).isEqualTo(45);
    }

    @Test
    void groupsByKeyTenantAndLogicalCall() {
        Instant t = clock.instant();
        reject("a", "call-1", t);
        admit("a", "search", "call-1", t.plusSeconds(1));
        admit("b", "chat", "call-2", t.plusSeconds(1));
        LedgerSnapshot s = ledger.snapshot();
        assertThat(s.byApiKey().get("a").rejected()).isEqualTo(1);
        assertThat(s.byApiKey().get("a").admitted()).isEqualTo(1);
        assertThat(s.byTenant()).containsOnlyKeys("search", "chat");
        assertThat(s.attemptsPerCall()).containsEntry("call-1", 2).containsEntry("call-2", 1);
        assertThat(ledger.rejections()).hasSize(1);
        assertThat(Ledger.fromJson(ledger.toJson())).isEqualTo(s);
    }

    @Test
    void tracksTheConcurrencyHighWaterMark() {
        long first = admit("a", null, null, clock.instant());
        long second = admit("a", null, null, clock.instant());
        ledger.complete(first);
        admit("a", null, null, clock.instant());
        ledger.complete(second);
        assertThat(ledger.maxConcurrency()).isEqualTo(2);
        assertThat(ledger.inFlight()).isEqualTo(1);
        assertThat(ledger.exchanges().get(0).completedAt()).isNotNull();
    }

    @Test
    void loosesNothingUnderConcurrentWriters() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            String key = "k" + w;
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 500; i++) {
                    long seq = admit(key, null, key + "-" + (i % 50), clock.instant());
                    ledger.complete(seq);
                }
                return null;
            }));
        }
        go.countDown();
        for (var f : done) {
            f.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();
        LedgerSnapshot s = ledger.snapshot();
        assertThat(s.total().admitted()).isEqualTo(4000);
        assertThat(s.byApiKey())
                .hasSize(8)
                .allSatisfy((k, c) -> assertThat(c.admitted()).isEqualTo(500));
        assertThat(s.attemptsPerCall())
                .hasSize(400)
                .allSatisfy((k, n) -> assertThat(n).isEqualTo(10));
        assertThat(ledger.inFlight()).isZero();
        assertThat(ledger.exchanges()).extracting(Exchange::seq).doesNotHaveDuplicates();
    }
}
