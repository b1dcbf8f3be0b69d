package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GuaranteesTest {

    private static Guarantees of(Object... tenantsAndShares) {
        Map<String, Double> shares = new LinkedHashMap<>();
        for (int i = 0; i < tenantsAndShares.length; i += 2) {
            shares.put((String) tenantsAndShares[i], (Double) tenantsAndShares[i + 1]);
        }
        return Guarantees.of(shares);
    }

    @Test
    void aConfiguredTenantHasItsShareAndAnyOtherNone() {
        Guarantees g = of("search", 0.3, "batch", 0.0);
        assertThat(g.share("search")).isEqualTo(0.3);
        assertThat(g.share("batch")).isZero();
        assertThat(g.share("chat")).isZero();
        assertThat(g.indexOf("chat")).isEqualTo(-1);
        assertThat(g.indexOf(null)).isEqualTo(-1);
        assertThat(g.tenant(g.indexOf("search"))).isEqualTo("search");
        assertThat(g.share(g.indexOf("search"))).isEqualTo(0.3);
    }

    @Test
    void noGuaranteesHoldNoTenant() {
        assertThat(Guarantees.none().isEmpty()).isTrue();
        assertThat(Guarantees.none().size()).isZero();
        assertThat(Guarantees.none().share("search")).isZero();
    }

    @Test
    void aShareMustBeAtLeastZeroAndLessThanTheWhole() {
        assertThatThrownBy(() -> of("search", 1.0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a guaranteed share must be >= 0 and < 1, was 1.0");
        assertThatThrownBy(() -> of("search", -0.1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sharesMustNotSumToMoreThanTheWhole() {
        assertThatThrownBy(() -> of("search", 0.6, "chat", 0.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than 1");
    }

    @Test
    void aShareTunedLiveAppliesAtOnce() {
        Guarantees g = of("search", 0.3, "chat", 0.2);
        g.setShare("chat", 0.5);
        assertThat(g.share("chat")).isEqualTo(0.5);
    }

    @Test
    void aLiveTuningThatWouldSumOverTheWholeChangesNothing() {
        Guarantees g = of("search", 0.3, "chat", 0.2);
        assertThatThrownBy(() -> g.setShare("chat", 0.8)).isInstanceOf(IllegalArgumentException.class);
        assertThat(g.share("chat")).isEqualTo(0.2);
    }

    @Test
    void onlyAConfiguredTenantCanBeTunedLive() {
        Guarantees g = of("search", 0.3);
        assertThatThrownBy(() -> g.setShare("chat", 0.1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenant chat is not configured");
    }
}
