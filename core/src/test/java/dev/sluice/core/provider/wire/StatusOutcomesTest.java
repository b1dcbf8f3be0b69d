package dev.sluice.core.provider.wire;

import static dev.sluice.core.retry.OutcomeClass.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.retry.WaitHints.ShouldRetry;
import org.junit.jupiter.api.Test;

class StatusOutcomesTest {

    @Test
    void statusAloneDecidesWhenTheBodySaysNothing() {
        assertThat(StatusOutcomes.byStatus(200)).isEqualTo(SUCCESS);
        assertThat(StatusOutcomes.byStatus(429)).isEqualTo(RETRYABLE_CAPACITY);
        for (int s : new int[] {408, 500, 502, 503, 504, 529}) {
            assertThat(StatusOutcomes.byStatus(s)).as("%d", s).isEqualTo(RETRYABLE_OVERLOAD);
        }
        assertThat(StatusOutcomes.byStatus(402)).isEqualTo(NON_RETRYABLE_POLICY);
        assertThat(StatusOutcomes.byStatus(409)).isEqualTo(NON_RETRYABLE_POLICY);
        for (int s : new int[] {400, 401, 403, 404, 413, 422, 0, 302}) {
            assertThat(StatusOutcomes.byStatus(s)).as("%d", s).isEqualTo(NON_RETRYABLE_REQUEST);
        }
    }

    @Test
    void xShouldRetryIsAuthoritative() {
        assertThat(StatusOutcomes.obey(ShouldRetry.NO, RETRYABLE_CAPACITY, 429)).isEqualTo(NON_RETRYABLE_POLICY);
        assertThat(StatusOutcomes.obey(ShouldRetry.NO, RETRYABLE_OVERLOAD, 503)).isEqualTo(NON_RETRYABLE_POLICY);
        assertThat(StatusOutcomes.obey(ShouldRetry.YES, NON_RETRYABLE_REQUEST, 400))
                .isEqualTo(RETRYABLE_OVERLOAD);
        assertThat(StatusOutcomes.obey(ShouldRetry.YES, NON_RETRYABLE_POLICY, 429))
                .isEqualTo(RETRYABLE_CAPACITY);
        assertThat(StatusOutcomes.obey(ShouldRetry.UNSAID, NON_RETRYABLE_REQUEST, 400))
                .isEqualTo(NON_RETRYABLE_REQUEST);
    }
}
