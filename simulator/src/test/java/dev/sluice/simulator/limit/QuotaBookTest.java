package dev.sluice.simulator.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.FakeClock;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaBookTest {
    private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:20Z"));
    private final ScopeKeys keyA = new ScopeKeys("a", "org-1", "m");
    private final ScopeKeys keyB = new ScopeKeys("b", "org-1", "m");

    private static Map<Dimension, Long> one() {
        return Map.of(Dimension.REQUESTS, 1L, Dimension.CONCURRENCY, 1L);
    }

    private static Limit resolved(Limit l, Algorithm algorithm) {
        return new Limit(
                l.dimension(),
                l.capacity(),
                l.window(),
                algorithm,
                l.scope() == null ? Scope.API_KEY : l.scope(),
                l.burst(),
                "l");
    }

    private QuotaBook book(Algorithm algorithm, Limit... limits) {
        return new QuotaBook(
                java.util.Arrays.stream(limits).map(l -> resolved(l, algorithm)).toList(), clock);
    }

    @Test
    void sixtyPerMinuteRefillsOnePerSecondAfterTheBurst() {
        QuotaBook book = book(Algorithm.TOKEN_BUCKET, Limit.perMinute(Dimension.REQUESTS, 60));
        for (int i = 0; i < 60; i++) {
            assertThat(book.admit(keyA, one()).admitted()).isTrue();
        }
        Admission refused = book.admit(keyA, one());
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofMillis(999));
        assertThat(book.admit(keyA, one()).admitted()).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(book.admit(keyA, one()).admitted()).isTrue();
        assertThat(book.admit(keyA, one()).admitted()).isFalse();
    }

    @Test
    void aBurstOfOneEnforcesTheRateWithinTheMinute() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET, Limit.perMinute(Dimension.REQUESTS, 60).burst(1));
        assertThat(book.admit(keyA, one()).admitted()).isTrue();
        assertThat(book.admit(keyA, one()).admitted()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(book.admit(keyA, one()).admitted()).isTrue();
    }

    @Test
    void keysHaveTheirOwnBucketsAndOrganizationsShareOne() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET,
                Limit.of(Dimension.REQUESTS, 2, Duration.ofSeconds(1)),
                Limit.of(Dimension.REQUESTS, 3, Duration.ofSeconds(1)).scope(Scope.ORGANIZATION));
        assertThat(book.admit(keyA, one()).admitted()).isTrue();
        assertThat(book.admit(keyA, one()).admitted()).isTrue();
        assertThat(book.admit(keyA, one()).admitted()).isFalse();
        assertThat(book.admit(keyB, one()).admitted()).isTrue();
        Admission org = book.admit(keyB, one());
        assertThat(org.admitted()).isFalse();
        assertThat(org.refusedBy().limit().scope()).isEqualTo(Scope.ORGANIZATION);
    }

    @Test
    void fixedWindowsAlignToTheMinuteAndNameTheirEnd() {
        QuotaBook book = book(Algorithm.FIXED_WINDOW, Limit.perMinute(Dimension.REQUESTS, 2));
        book.admit(keyA, one());
        book.admit(keyA, one());
        Admission refused = book.admit(keyA, one());
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.refusedBy().resetAt()).isEqualTo(Instant.parse("2026-11-29T10:01:00Z"));
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(40));
        clock.advance(Duration.ofSeconds(40));
        assertThat(book.admit(keyA, one()).admitted()).isTrue();
    }

    @Test
    void aRequestLargerThanTheBucketIsNotAdmissible() {
        QuotaBook book = book(Algorithm.TOKEN_BUCKET, Limit.perMinute(Dimension.TOKENS, 1000));
        Admission a = book.admit(keyA, Map.of(Dimension.TOKENS, 1001L));
        assertThat(a.tooLarge()).isTrue();
        assertThat(a.retryAfter()).isNull();
    }

    @Test
    void aRefusalChargesNothingAndAnAdmissionChargesEveryLimit() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET,
                Limit.perMinute(Dimension.REQUESTS, 10),
                Limit.perMinute(Dimension.TOKENS, 100));
        assertThat(book.admit(keyA, Map.of(Dimension.REQUESTS, 1L, Dimension.TOKENS, 90L))
                        .admitted())
                .isTrue();
        assertThat(book.admit(keyA, Map.of(Dimension.REQUESTS, 1L, Dimension.TOKENS, 20L))
                        .admitted())
                .isFalse();
        List<LimitStatus> s = book.statuses(keyA);
        assertThat(s).extracting(LimitStatus::remaining).containsExactly(9L, 10L);
    }

    @Test
    void concurrencySlotsComeBackOnRelease() {
        QuotaBook book = book(Algorithm.TOKEN_BUCKET, Limit.concurrency(1));
        Admission first = book.admit(keyA, one());
        Admission second = book.admit(keyA, one());
        assertThat(second.admitted()).isFalse();
        assertThat(second.retryAfter()).isNull();
        book.release(first);
        assertThat(book.admit(keyA, one()).admitted()).isTrue();
    }

    @Test
    void refusedRequestsCanBeChargedAndRefundsTrueUp() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET,
                Limit.perMinute(Dimension.REQUESTS, 2),
                Limit.perMinute(Dimension.OUTPUT_TOKENS, 1000));
        Admission a = book.admit(keyA, Map.of(Dimension.REQUESTS, 1L, Dimension.OUTPUT_TOKENS, 800L));
        book.chargeRefused(keyA, Dimension.REQUESTS, 1);
        book.chargeRefused(keyA, Dimension.REQUESTS, 1); // never below empty
        book.refund(a, Dimension.OUTPUT_TOKENS, 700);
        assertThat(book.statuses(keyA)).extracting(LimitStatus::remaining).containsExactly(0L, 900L);
    }
}
