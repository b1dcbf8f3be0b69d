package dev.sluice.core.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.core.provider.RequestFacts;
import org.junit.jupiter.api.Test;

/** What Sluice expects a call to use before it is sent, and what it learns from what calls used. */
class EstimatorTest {

    private static final String GPT = "gpt-4o-mini";
    private static final String CLAUDE = "claude-sonnet-4";
    private static final String ROUTE = "openai/prod/gpt-4o-mini";

    private final Estimator estimator = Estimator.defaults(); // 4 characters a token, 4 a message

    // ------------------------------------------------------------------ input

    @Test
    void inputIsCharactersOverTheRatioPlusFramingForEachMessage() {
        assertThat(estimator.estimateInputTokens(GPT, 400, 2)).isEqualTo(100 + 2 * 4);
        assertThat(estimator.estimateInputTokens(GPT, 401, 0)).isEqualTo(101); // a partial token counts
    }

    @Test
    void anEmptyPromptStillCostsAToken() {
        assertThat(estimator.estimateInputTokens(GPT, 0, 0)).isEqualTo(1);
    }

    @Test
    void streamedTextIsWorthItsCharactersOverTheRatio() {
        assertThat(estimator.tokensForText(GPT, 10)).isEqualTo(3);
    }

    @Test
    void aModelWhosePromptsCountHigherIsEstimatedHigherAfterItsCallsReportBack() {
        learnPrompt(GPT, 100, 225); // the provider counted 2.25 times the estimate

        // one call moves the correction a fifth of the way, so one odd call cannot swing it
        assertThat(estimator.correction(GPT)).isCloseTo(1.25, within(1e-9));
        assertThat(estimator.estimateInputTokens(GPT, 400, 0)).isEqualTo(125);
        assertThat(estimator.inputEstimateError(GPT)).isCloseTo(0.25, within(1e-9));
    }

    @Test
    void theCorrectionSettlesOnWhatTheProviderCounts() {
        for (int i = 0; i < 60; i++) {
            long estimate = estimator.estimateInputTokens(GPT, 4_000, 0);
            learnPrompt(GPT, estimate, 1_500);
        }
        assertThat(estimator.correction(GPT)).isCloseTo(1.5, within(0.01));
        assertThat(estimator.estimateInputTokens(GPT, 4_000, 0)).isCloseTo(1_500, within(15L));
    }

    @Test
    void theCorrectionStaysWithinItsBoundsWhateverTheProviderReports() {
        learnPrompt(GPT, 100, 100_000);
        assertThat(estimator.correction(GPT)).isEqualTo(2.0);

        for (int i = 0; i < 50; i++) {
            learnPrompt(CLAUDE, estimator.estimateInputTokens(CLAUDE, 4_000, 0), 1);
        }
        assertThat(estimator.correction(CLAUDE)).isEqualTo(0.5);
        assertThat(estimator.estimateInputTokens(CLAUDE, 400, 0)).isEqualTo(50);
    }

    @Test
    void eachModelLearnsItsOwnCorrection() {
        learnPrompt(GPT, 100, 225);
        assertThat(estimator.correction(CLAUDE)).isEqualTo(1.0);
        assertThat(estimator.estimateInputTokens(CLAUDE, 400, 0)).isEqualTo(100);
        assertThat(estimator.correction(null)).isEqualTo(1.0);
    }

    @Test
    void aCallWhosePromptCountWasNotReportedTeachesNothing() {
        learnPrompt(GPT, 100, 0);
        assertThat(estimator.correction(GPT)).isEqualTo(1.0);
    }

    // ------------------------------------------------------------------ output

    @Test
    void outputIsTheRequestsMaxTokensOrADefaultWhenItNamesNone() {
        assertThat(estimator.outputEstimate(ROUTE, 4_000)).isEqualTo(4_000);
        assertThat(estimator.outputEstimate(ROUTE, RequestFacts.NO_MAX)).isEqualTo(1_024);
        assertThat(estimator.outputEstimate(null, RequestFacts.NO_MAX)).isEqualTo(1_024);
        assertThat(estimator.defaultOutputTokens()).isEqualTo(1_024);
    }

    @Test
    void aRouteThatNeverGetsNearItsMaxTokensReservesItsLearnedPercentile() {
        for (int i = 1; i <= 20; i++) {
            learnOutput(ROUTE, i * 10); // 10, 20, ... 200
        }
        // p95 of 20 outputs: the 19th smallest
        assertThat(estimator.outputEstimate(ROUTE, 4_000)).isEqualTo(190);
        assertThat(estimator.outputEstimate(ROUTE, RequestFacts.NO_MAX)).isEqualTo(190);
        assertThat(estimator.outputEstimate(ROUTE, 100)).isEqualTo(100); // never more than the request allows
    }

    @Test
    void fewerThanSixteenOutputsAreNotEnoughToLearnFrom() {
        for (int i = 0; i < 15; i++) {
            learnOutput(ROUTE, 10);
        }
        assertThat(estimator.outputEstimate(ROUTE, 4_000)).isEqualTo(4_000);
        assertThat(estimator.outputEstimate(ROUTE, RequestFacts.NO_MAX)).isEqualTo(1_024);

        learnOutput(ROUTE, 10);
        assertThat(estimator.outputEstimate(ROUTE, 4_000)).isEqualTo(10);
    }

    @Test
    void thePercentileFollowsTheRoutesRecentOutputs() {
        for (int i = 0; i < 128; i++) {
            learnOutput(ROUTE, 1_000);
        }
        assertThat(estimator.outputEstimate(ROUTE, 4_000)).isEqualTo(1_000);
        for (int i = 0; i < 128; i++) {
            learnOutput(ROUTE, 100);
        }
        assertThat(estimator.outputEstimate(ROUTE, 4_000)).isEqualTo(100);
    }

    @Test
    void afterEveryCallThePercentileIsThatOfTheLast128OutputsSorted() {
        java.util.Random random = new java.util.Random(11);
        java.util.ArrayDeque<Long> window = new java.util.ArrayDeque<>();
        for (int call = 0; call < 2_000; call++) {
            // repeated values as often as not, as real outputs have (a max tokens hit, a fixed answer)
            long output = random.nextBoolean() ? random.nextInt(8) * 100 : random.nextInt(5_000);
            learnOutput(ROUTE, output);
            window.addLast(output);
            if (window.size() > 128) {
                window.removeFirst();
            }
            long[] sorted = window.stream().mapToLong(Long::longValue).sorted().toArray();
            long expected = window.size() < 16
                    ? 1_024 // not learned yet: the default
                    : sorted[Math.max(0, (int) Math.ceil(0.95 * sorted.length) - 1)];
            assertThat(estimator.outputEstimate(ROUTE, RequestFacts.NO_MAX))
                    .as("after call %s", call)
                    .isEqualTo(expected);
        }
    }

    @Test
    void eachRouteLearnsItsOwnOutputs() {
        for (int i = 0; i < 20; i++) {
            learnOutput(ROUTE, 50);
        }
        assertThat(estimator.outputEstimate("anthropic/prod/claude", 4_000)).isEqualTo(4_000);
    }

    @Test
    void aCallWhoseOutputIsUnknownTeachesNothing() {
        for (int i = 0; i < 20; i++) {
            learnOutput(ROUTE, -1);
        }
        assertThat(estimator.outputEstimate(ROUTE, RequestFacts.NO_MAX)).isEqualTo(1_024);
    }

    // ------------------------------------------------------------------ configuration

    @Test
    void withLearningOffEstimatesStayAsConfigured() {
        Estimator fixed = new Estimator(4.0, 4, 0.95, 1_024, false, 0.5, 2.0);
        for (int i = 0; i < 20; i++) {
            fixed.learn(ROUTE, facts(GPT, 100), 225, 10);
        }
        assertThat(fixed.correction(GPT)).isEqualTo(1.0);
        assertThat(fixed.outputEstimate(ROUTE, 4_000)).isEqualTo(4_000);
    }

    @Test
    void theRatioAndFramingAreConfigurable() {
        Estimator dense = new Estimator(1.5, 3, 0.5, 256, true, 0.5, 2.0);
        assertThat(dense.estimateInputTokens(GPT, 300, 2)).isEqualTo(200 + 6);
        assertThat(dense.outputEstimate(ROUTE, RequestFacts.NO_MAX)).isEqualTo(256);
    }

    @Test
    void aRatioOfZeroCharactersATokenIsRefused() {
        assertThatThrownBy(() -> new Estimator(0, 4, 0.95, 1_024, true, 0.5, 2.0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("charsPerToken");
        assertThatThrownBy(() -> new Estimator(Double.NaN, 4, 0.95, 1_024, true, 0.5, 2.0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------ fixtures

    @Test
    void callersLearningAtOnceLoseNothingAndSettleOnTheSameFigures() throws Exception {
        int threads = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 2_000; i++) {
                    learnPrompt(GPT, estimator.estimateInputTokens(GPT, 4_000, 0), 1_500);
                    learnOutput(ROUTE, 300);
                }
                return null;
            }));
        }
        go.countDown();
        for (java.util.concurrent.Future<?> f : done) {
            f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(estimator.correction(GPT)).isCloseTo(1.5, within(0.01));
        assertThat(estimator.outputEstimate(ROUTE, 4_000)).isEqualTo(300);
    }

    private void learnPrompt(String model, long estimated, long reported) {
        estimator.learn(null, facts(model, estimated), reported, -1);
    }

    private void learnOutput(String route, long outputTokens) {
        estimator.learn(route, facts(null, 0), 0, outputTokens);
    }

    private static RequestFacts facts(String model, long estimatedInputTokens) {
        return RequestFacts.builder("openai")
                .model(model)
                .estimatedInputTokens(estimatedInputTokens)
                .build();
    }
}
