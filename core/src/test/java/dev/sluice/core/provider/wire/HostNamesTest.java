package dev.sluice.core.provider.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostNamesTest {

    @Test
    void hostsCompareWithoutCasePortOrTrailingDot() {
        assertThat(HostNames.bare("API.OpenAI.com:443")).isEqualTo("api.openai.com");
        assertThat(HostNames.bare("api.openai.com.")).isEqualTo("api.openai.com");
        assertThat(HostNames.bare(" myres.openai.azure.com ")).isEqualTo("myres.openai.azure.com");
        assertThat(HostNames.bare("::1")).isEqualTo("::1");
        assertThat(HostNames.bare(null)).isEmpty();
    }

    @Test
    void headerCountsAreReadDefensively() {
        assertThat(HeaderNumbers.count("9999")).isEqualTo(9999);
        assertThat(HeaderNumbers.count(" 12.7 ")).isEqualTo(12);
        assertThat(HeaderNumbers.count("7.")).isEqualTo(7);
        assertThat(HeaderNumbers.count("1000000000000000")).isEqualTo(HeaderNumbers.MAX_COUNT);
        assertThat(HeaderNumbers.count("999999999999999")).isEqualTo(999_999_999_999_999L);
        for (String junk : new String[] {
            null,
            "",
            "-1",
            "abc",
            "1e5",
            "NaN",
            "12 tokens",
            ".5",
            "1.2.3",
            "+3",
            "1000000000000001",
            "20000000000000000000",
            "\u0661"
        }) {
            assertThat(HeaderNumbers.count(junk)).as(junk).isEqualTo(-1);
        }
    }
}
