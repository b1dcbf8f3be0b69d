package dev.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Permit;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Runs every admission benchmark method a few times outside JMH (the real run is far too slow for
 * {@code mvn verify}): each one must take the fast path, and Sluice's must leave no permit open,
 * or the published figures would measure something else.
 */
class AdmissionBenchmarkTest {

    @Test
    void everyBenchmarkRunsOnTheFastPathAndLeavesNothingOpen() throws Exception {
        AdmissionBenchmark benchmark = new Admission1Thread();
        benchmark.setUp();
        AdmissionBenchmark.Caller caller = new AdmissionBenchmark.Caller();
        caller.setUp();
        AdmissionBenchmark.Batch batch = new AdmissionBenchmark.Batch();
        batch.setUp();
        org.openjdk.jmh.infra.Blackhole hole = new org.openjdk.jmh.infra.Blackhole(
                "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        List<String> ran = new ArrayList<>();
        for (Method m : AdmissionBenchmark.class.getDeclaredMethods()) {
            if (!m.isAnnotationPresent(Benchmark.class)) {
                continue;
            }
            for (int i = 0; i < 3; i++) {
                Class<?> param = m.getParameterCount() == 0 ? null : m.getParameterTypes()[0];
                if (param == AdmissionBenchmark.Batch.class) {
                    batch.settlePreviousBatch();
                    m.invoke(benchmark, batch);
                    for (Permit p : batch.permits) {
                        assertThat(p).as(m.getName()).isNotNull();
                    }
                    continue;
                }
                Object result = param == null
                        ? m.invoke(benchmark)
                        : param == org.openjdk.jmh.infra.Blackhole.class
                                ? (Object) Boolean.TRUE
                                : m.invoke(benchmark, caller);
                if (param == org.openjdk.jmh.infra.Blackhole.class) {
                    m.invoke(benchmark, hole);
                }
                if (result instanceof Permit) {
                    Permit p = (Permit) result;
                    assertThat(p.isSettled()).as(m.getName()).isTrue();
                    assertThat(p.isReleased()).as(m.getName()).isTrue();
                } else {
                    assertThat(result).as(m.getName()).isEqualTo(true);
                }
            }
            ran.add(m.getName());
        }
        batch.settlePreviousBatch();
        assertThat(benchmark.oneBucket.controls().outstandingPermits()).isZero();
        assertThat(benchmark.fifteenBuckets.controls().outstandingPermits()).isZero();
        assertThat(benchmark.fifteenBuckets.controls().limits()).hasSize(15);
        benchmark.tearDown(); // throws if a permit was left open or a call refused
        assertThat(ran)
                .hasSize(12)
                .contains(
                        "sluice_1bucket_admitOnly",
                        "sluice_15buckets_admitOnly",
                        "sluice_1bucket_admitSettle",
                        "sluice_15buckets_admitSettle",
                        "bucket4j_1bucket_tryConsume",
                        "resilience4j_1bucket_acquirePermission");
    }

    @Test
    void everyCallOfTheHierarchyCrossesFifteenBuckets() {
        AdmissionBenchmark benchmark = new Admission1Thread();
        benchmark.setUp();
        try {
            Permit permit = AdmissionBenchmark.admitCancel(
                    benchmark.fifteenBuckets, AdmissionBenchmark.newContext(), AdmissionBenchmark.CHAT_CALL);
            assertThat(permit.isSettled()).isTrue();
            benchmark
                    .fifteenBuckets
                    .controls()
                    .limits()
                    .forEach(limit -> assertThat(limit.buckets()).as(limit.id()).hasSize(1));
        } finally {
            benchmark.tearDown();
        }
    }
}
