package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Guaranteed tenants' reserves: each up to its share of the burst, refilled at its share of the rate. */
class TenantReservesTest {

    private final FakeClock clock = new FakeClock();

    /** Reserves of 1,000 tokens a second for "a" (20 %) and "b" (10 %). */
    private TenantReserves reserves() {
        Map<String, Double> shares = new LinkedHashMap<>();
        shares.put("a", 0.2);
        shares.put("b", 0.1);
        Guarantees guarantees = Guarantees.of(shares);
        LimitSpec spec = LimitSpec.builder("tokens", Dimension.TOTAL_TOKENS, 1_000)
                .window(Duration.ofSeconds(1))
                .build();
        Limit limit = Limit.of(
                spec, clock::nanoTime, clock.nanoTime(), clock.epochMillis(), Duration.ofMinutes(1), guarantees);
        return TenantReserves.of(limit, guarantees);
    }

    @Test
    void startFullAtEachTenantsShareOfTheBurst() {
        TenantReserves r = reserves();
        assertThat(r.size()).isEqualTo(2);
        assertThat(r.held(0)).isCloseTo(200, within(1e-9));
        assertThat(r.held(1)).isCloseTo(100, within(1e-9));
        assertThat(r.heldByOthers(0)).isCloseTo(100, within(1e-9));
        assertThat(r.heldByOthers(-1)).isCloseTo(300, within(1e-9));
        assertThat(r.othersAtCap(1)).isCloseTo(200, within(1e-9));
        assertThat(1_000 - r.othersAtCap(-1)).isCloseTo(700, within(1e-9));
    }

    @Test
    void aTenantTakesFromItsOwnReserveOnlyAndGetsBackNoMoreThanItsCap() {
        TenantReserves r = reserves();
        assertThat(r.take(0, 250)).isEqualTo(200);
        assertThat(r.take(-1, 50))
                .as("a tenant without a guarantee has no reserve")
                .isZero();
        assertThat(r.held(0)).isCloseTo(0, within(1e-9));
        assertThat(r.heldByOthers(1)).isCloseTo(0, within(1e-9));
        r.giveBack(0, 500);
        assertThat(r.held(0)).isCloseTo(200, within(1e-9));
    }

    @Test
    void refillAtTheirShareOfWhatTheBucketRefillsUpToTheirCaps() {
        TenantReserves r = reserves();
        r.take(0, 200);
        r.take(1, 100);
        r.refill(500);
        assertThat(r.held(0)).isCloseTo(100, within(1e-9));
        assertThat(r.held(1)).isCloseTo(50, within(1e-9));
        r.refill(10_000);
        assertThat(r.held(0)).isCloseTo(200, within(1e-9));
        assertThat(r.held(1)).isCloseTo(100, within(1e-9));
        r.take(0, 200);
        r.fill();
        assertThat(r.held(0)).isCloseTo(200, within(1e-9));
    }

    @Test
    void noGuaranteesHoldNoReserves() {
        LimitSpec spec = LimitSpec.builder("tokens", Dimension.TOTAL_TOKENS, 1_000)
                .window(Duration.ofSeconds(1))
                .build();
        Limit limit = Limit.of(spec, clock::nanoTime, clock.nanoTime(), clock.epochMillis(), Duration.ofMinutes(1));
        assertThat(TenantReserves.of(limit, Guarantees.none())).isNull();
    }
}
