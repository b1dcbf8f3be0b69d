package dev.sluice.simulator.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.FakeClock;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A neighbour takes its share of an organization's limits, steadily, and says what it took. */
class NeighbourTest {
    private final FakeClock clock = new FakeClock();
    private final ScopeKeys orgA = new ScopeKeys("sk-1", "org-a", "m");
    private final ScopeKeys orgB = new ScopeKeys("sk-2", "org-b", "m");
    private final List<long[]> used = new ArrayList<>(); // {wanted, taken}

    private QuotaBook book(Algorithm algorithm, Scope scope, Limit... limits) {
        List<Limit> resolved = new ArrayList<>();
        for (Limit l : limits) {
            resolved.add(new Limit(
                    l.dimension(),
                    l.capacity(),
                    l.window(),
                    algorithm,
                    scope,
                    l.burst(),
                    l.dimension().name().toLowerCase()));
        }
        return new QuotaBook(
                resolved,
                clock,
                List.of(new Neighbour("org-a", 0.4)),
                (n, limit, from, to, wanted, taken) -> used.add(new long[] {wanted, taken}));
    }

    private long taken() {
        return used.stream().mapToLong(u -> u[1]).sum();
    }

    private static Map<Dimension, Long> request(long tokens) {
        return Map.of(Dimension.REQUESTS, 1L, Dimension.TOKENS, tokens);
    }

    /** A caller that asks every 10 ms for {@code seconds}; returns what it got admitted. */
    private long hammer(QuotaBook book, ScopeKeys keys, int seconds) {
        long admitted = 0;
        for (int i = 0; i < seconds * 100; i++) {
            clock.advance(Duration.ofMillis(10));
            if (book.admit(keys, request(10)).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void aGreedyCallerGetsWhatTheNeighbourLeaves() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET, Scope.ORGANIZATION, Limit.of(Dimension.REQUESTS, 100, Duration.ofSeconds(10)));
        book.admit(orgA, request(10)); // the organization's buckets start here
        long admitted = 1 + hammer(book, orgA, 100);
        // 100 s at 10 a second is 1,000, plus the first burst of 100; the neighbour takes 40 % of the rate.
        assertThat(taken()).isCloseTo(400, within(2L));
        assertThat(admitted).isCloseTo(100 + 600, within(3L));
        assertThat(used.stream().mapToLong(u -> u[0]).sum()).isCloseTo(400, within(2L));
    }

    @Test
    void anotherOrganizationIsUntouched() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET, Scope.ORGANIZATION, Limit.of(Dimension.REQUESTS, 100, Duration.ofSeconds(10)));
        book.admit(orgB, request(10));
        assertThat(1 + hammer(book, orgB, 100)).isCloseTo(1100, within(2L));
        assertThat(used).isEmpty();
    }

    @Test
    void keyScopedLimitsAreNotTheNeighbours() {
        QuotaBook book =
                book(Algorithm.TOKEN_BUCKET, Scope.API_KEY, Limit.of(Dimension.REQUESTS, 100, Duration.ofSeconds(10)));
        book.admit(orgA, request(10));
        assertThat(1 + hammer(book, orgA, 10)).isCloseTo(200, within(2L));
        assertThat(used).isEmpty();
    }

    @Test
    void itTakesItsShareOfEveryLimitAndAQuietBucketStaysNearlyFull() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET,
                Scope.ORGANIZATION,
                Limit.of(Dimension.REQUESTS, 100, Duration.ofSeconds(10)),
                Limit.of(Dimension.TOKENS, 10_000, Duration.ofSeconds(10)));
        book.admit(orgA, Map.of(Dimension.REQUESTS, 0L, Dimension.TOKENS, 0L));
        book.statuses(orgA);
        clock.advance(Duration.ofSeconds(60));
        List<LimitStatus> after = book.statuses(orgA);
        // Refill outpaces a 40 % neighbour: a quiet organization's buckets are (nearly) full...
        assertThat(after.get(0).remaining()).isGreaterThanOrEqualTo(99);
        assertThat(after.get(1).remaining()).isGreaterThanOrEqualTo(9_950);
        // ...while it took 40 % of each rate all along: 240 requests and 24,000 tokens in 60 s.
        assertThat(taken()).isCloseTo(240 + 24_000, within(3L));
    }

    @Test
    void inAFixedWindowItTakesItsShareOfEveryWindow() {
        QuotaBook book = book(
                Algorithm.FIXED_WINDOW, Scope.ORGANIZATION, Limit.of(Dimension.REQUESTS, 100, Duration.ofSeconds(10)));
        clock.advance(Duration.ofMillis(10_000 - clock.millis() % 10_000)); // a window's start
        // 70 a window for the caller, steadily: with the neighbour's 40 the window is full after
        // 100/110 of it, when the caller has had 63.6 (a fixed window goes to whoever comes first).
        long admitted = 0;
        for (int i = 0; i < 140; i++) {
            clock.advance(Duration.ofNanos(10_000_000_000L / 70));
            if (book.admit(orgA, request(10)).admitted()) {
                admitted++;
            }
        }
        assertThat(taken()).isCloseTo(80, within(2L));
        assertThat(admitted).isCloseTo(127, within(3L));
    }

    @Test
    void itHoldsItsShareOfConcurrencySlots() {
        QuotaBook book = book(Algorithm.TOKEN_BUCKET, Scope.ORGANIZATION, Limit.concurrency(10));
        int held = 0;
        while (book.admit(orgA, Map.of(Dimension.CONCURRENCY, 1L)).admitted()) {
            held++;
        }
        assertThat(held).isEqualTo(6);
    }

    @Test
    void aWaitNamedWithANeighbourAccountsForItsDrain() {
        QuotaBook book = book(
                Algorithm.TOKEN_BUCKET,
                Scope.ORGANIZATION,
                Limit.of(Dimension.REQUESTS, 10, Duration.ofSeconds(10)).burst(1));
        assertThat(book.admit(orgA, request(1)).admitted()).isTrue();
        Admission refused = book.admit(orgA, request(1));
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofNanos((long) Math.ceil(1e9 / 0.6)));
    }

    @Test
    void aShareOutsideZeroToOneIsRefused() {
        assertThatThrownBy(() -> new Neighbour("org-a", 1.0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Neighbour("org-a", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
