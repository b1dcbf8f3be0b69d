package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import org.junit.jupiter.api.Test;

class DemandTest {

    @Test
    void aBuilderUsedAgainLeavesTheDemandItBuiltAsItWas() {
        Demand.Builder builder = Demand.builder().inputTokens(100).outputTokens(50);
        Demand first = builder.build();

        Demand second = builder.inputTokens(7)
                .providerCharge(Dimension.INPUT_TOKENS, 900)
                .providerTruesUp(Dimension.OUTPUT_TOKENS)
                .build();

        assertThat(first.inputTokens()).isEqualTo(100);
        assertThat(first.providerCharge(Dimension.INPUT_TOKENS)).isEqualTo(100);
        assertThat(first.providerTruesUp(Dimension.OUTPUT_TOKENS)).isFalse();
        assertThat(second.inputTokens()).isEqualTo(7);
        assertThat(second.outputTokens()).isEqualTo(50);
        assertThat(second.providerCharge(Dimension.INPUT_TOKENS)).isEqualTo(900);
        assertThat(second.providerTruesUp(Dimension.OUTPUT_TOKENS)).isTrue();
    }

    @Test
    void totalTokensIsInputPlusOutputAndRequestsDefaultToOne() {
        Demand demand = Demand.builder().inputTokens(30).outputTokens(12).build();

        assertThat(demand.totalTokens()).isEqualTo(42);
        assertThat(demand.requests()).isEqualTo(1);
        assertThat(demand.estimate(Dimension.CONCURRENCY)).isEqualTo(1);
        assertThat(demand.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(42);
    }
}
