package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.Algorithm;
import dev.sluice.config.CalendarPeriod;
import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

class LimitSpecTest {

    @Test
    void aLimitIsATokenBucketForTheWholeOrganizationEnforcedUnlessToldOtherwise() {
        LimitSpec spec = LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 1_000, Duration.ofMinutes(1));
        assertThat(spec.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThat(spec.level()).isEqualTo(ScopeLevel.ORGANIZATION);
        assertThat(spec.enforced()).isTrue();
        assertThat(spec.source()).isEqualTo(LimitSpec.Source.CONFIGURED);
        assertThat(spec.mirrorsProvider()).isFalse();
        assertThat(spec.burst()).isZero();
        assertThat(spec.warnAt()).isEqualTo(0.8);
        assertThat(spec.models()).isEmpty();
    }

    @Test
    void aCapacityMustBePositiveAndTheErrorNamesTheLimit() {
        assertThatThrownBy(() -> LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 0, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit tpm: capacity must be > 0, was 0");
    }

    @Test
    void aRateLimitNeedsAWindowAndConcurrencyNone() {
        assertThatThrownBy(() ->
                        LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, 10).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit tpm: a window > 0 is required");
        assertThatThrownBy(() -> LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 10, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(LimitSpec.builder("conc", Dimension.CONCURRENCY, 4).build().window())
                .isNull();
    }

    @Test
    void aDailyResetCountsOverADay() {
        LimitSpec spec = LimitSpec.builder("rpd", Dimension.REQUESTS, 100)
                .dailyReset(LocalTime.of(0, 0), ZoneId.of("America/Los_Angeles"))
                .build();
        assertThat(spec.window()).isEqualTo(Duration.ofDays(1));
        assertThat(spec.zone()).isEqualTo(ZoneId.of("America/Los_Angeles"));
    }

    @Test
    void aCalendarLimitNeedsAPeriodAndCountsOverItsLongest() {
        LimitSpec monthly = LimitSpec.builder("spend", Dimension.SPEND, 100)
                .calendar(CalendarPeriod.MONTH, LocalTime.MIDNIGHT, ZoneId.of("UTC"))
                .build();
        assertThat(monthly.period()).isEqualTo(CalendarPeriod.MONTH);
        assertThat(monthly.window()).isEqualTo(CalendarPeriod.MONTH.longest());
        assertThatThrownBy(() -> LimitSpec.builder("spend", Dimension.SPEND, 100)
                        .algorithm(Algorithm.CALENDAR)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit spend: a calendar limit needs a period");
    }

    @Test
    void onlyACalendarLimitHasAPeriod() {
        LimitSpec madeATokenBucketAgain = LimitSpec.builder("spend", Dimension.SPEND, 100)
                .calendar(CalendarPeriod.MONTH, LocalTime.MIDNIGHT, ZoneId.of("UTC"))
                .algorithm(Algorithm.TOKEN_BUCKET)
                .window(Duration.ofDays(1))
                .build();
        assertThat(madeATokenBucketAgain.period()).isNull();
        assertThat(madeATokenBucketAgain.window()).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void aWarningShareMustBeAboveZeroAndAtMostTheWhole() {
        assertThatThrownBy(() -> LimitSpec.builder("spend", Dimension.SPEND, 100)
                        .window(Duration.ofDays(1))
                        .warnAt(0)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit spend: warnAt must be in (0, 1], was 0.0");
        assertThat(LimitSpec.builder("spend", Dimension.SPEND, 100)
                        .window(Duration.ofDays(1))
                        .warnAt(1)
                        .build()
                        .warnAt())
                .isEqualTo(1.0);
    }

    @Test
    void aNegativeBurstIsRefused() {
        assertThatThrownBy(() -> LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, 10)
                        .window(Duration.ofMinutes(1))
                        .burst(-1)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit tpm: burst must be >= 0, was -1");
    }

    @Test
    void aSpecRebuiltFromItsBuilderIsTheSame() {
        LimitSpec spec = LimitSpec.builder("tpm", Dimension.OUTPUT_TOKENS, 5_000)
                .window(Duration.ofSeconds(10))
                .algorithm(Algorithm.FIXED_WINDOW)
                .level(ScopeLevel.API_KEY)
                .provider("openai")
                .models(List.of("gpt-*"))
                .tenant("search")
                .enforced(false)
                .shared(true)
                .mirrorsProvider(true)
                .source(LimitSpec.Source.LEARNED)
                .burst(800)
                .warnAt(0.5)
                .build();
        LimitSpec again = spec.toBuilder().build();
        assertThat(again).usingRecursiveComparison().isEqualTo(spec);
        assertThat(spec.toBuilder().capacity(9_000).build().capacity()).isEqualTo(9_000);
    }

    @Test
    void itsTextSaysWhatItCountsWhereAndForWhom() {
        LimitSpec spec = LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, 1_000)
                .window(Duration.ofMinutes(1))
                .provider("openai")
                .tenant("search")
                .enforced(false)
                .build();
        assertThat(spec.toString())
                .contains("tpm(")
                .contains("1000/PT1M")
                .contains("provider=openai")
                .contains("tenant=search")
                .contains("not enforced");
    }
}
