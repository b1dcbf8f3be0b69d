package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Algorithm;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.state.SavedState;
import dev.sluice.core.state.StateFile;
import dev.sluice.core.state.StateKeeper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart continues where the last run was, instead of handing out a fresh budget: what was
 * learned, what a window already counted and a pause still running come back from the state file;
 * a stale or corrupt file is ignored.
 */
class StateRestartTest extends GovernorFixture {

    @TempDir
    Path dir;

    private static CallContext call(String keyId) {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("t")
                .apiKeyId(keyId)
                .build();
    }

    /** A gateway's 10 calls a minute per key, counted in fixed windows (no headers tell it). */
    private static LimitSpec perKeyWindow() {
        return LimitSpec.builder("per-key", REQUESTS, 10)
                .window(Duration.ofMinutes(1))
                .algorithm(Algorithm.FIXED_WINDOW)
                .level(ScopeLevel.API_KEY)
                .build();
    }

    private Governor restarted(SavedState saved, LimitSpec... limits) {
        governor.close();
        Governor next = governor(limits);
        next.controls().restoreState(saved);
        return next;
    }

    @Test
    void aRestartInTheMiddleOfAWindowDoesNotHandOutAFreshOne() throws Exception {
        clock.advance(Duration.ofSeconds(5)); // inside a window, not at its start
        governor(perKeyWindow());
        for (int i = 0; i < 8; i++) {
            governor.tryAdmit(call("k_1"), Demand.oneRequest()).permit().settle(Usage.NONE);
        }
        SavedState saved = SavedState.fromJson(governor.controls().saveState().toJson());
        clock.advance(Duration.ofSeconds(10));
        restarted(saved, perKeyWindow());

        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .as("the window counted 8 before the restart: 10 in all")
                .isFalse();
        clock.advance(Duration.ofMinutes(1));
        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .as("the next window")
                .isTrue();
    }

    @Test
    void learnedLimitsOrganizationsAndPausesComeBack() throws Exception {
        governor();
        governor.learner()
                .learn(new ProviderAnswer(call("k_1"), List.of(new LearnedBudget("requests", REQUESTS, 60, 3, 60_000)))
                        .organization("org-acme"));
        governor.learner()
                .pauseProviderScope(call("k_1"), Duration.ofSeconds(30).toNanos());
        SavedState saved = SavedState.fromJson(governor.controls().saveState().toJson());
        clock.advance(Duration.ofSeconds(10));
        restarted(saved);

        Admission during = governor.tryAdmit(call("k_2x"), Demand.oneRequest());
        assertThat(during.isAdmitted())
                .as("another key, not of the organization")
                .isTrue();
        Admission paused = governor.tryAdmit(call("k_1"), Demand.oneRequest());
        assertThat(paused.isAdmitted()).as("the provider's pause still runs").isFalse();
        assertThat(paused.rejection().retryAfterMillis()).isBetween(19_000L, 20_000L);
        assertThat(governor.controls().providerScopes()).anySatisfy(s -> {
            assertThat(s.displayName()).isEqualTo("openai/org-acme/gpt-4o-mini");
            assertThat(s.learnedBuckets()).hasSize(1);
            assertThat(s.learnedBuckets()[0].capacity()).isEqualTo(60);
        });
    }

    @Test
    void aStaleOrCorruptFileIsIgnoredWithoutHarm() throws Exception {
        governor(perKeyWindow());
        governor.tryAdmit(call("k_1"), Demand.oneRequest()).permit().settle(Usage.NONE);
        StateFile file = new StateFile(dir.resolve("sub").resolve("svc.state.json"));
        new StateKeeper(governor, file, Duration.ofSeconds(15)).save();
        assertThat(file.path()).exists();

        clock.advance(StateKeeper.MAX_AGE.plusSeconds(1));
        assertThat(new StateKeeper(governor(perKeyWindow()), file, Duration.ofSeconds(15)).restore())
                .isZero();

        Files.write(file.path(), "{\"version\":1,\"savedAt\":".getBytes(StandardCharsets.UTF_8));
        assertThat(new StateKeeper(governor(perKeyWindow()), file, Duration.ofSeconds(15)).restore())
                .isZero();
        Files.write(file.path(), "<html>not json</html>".getBytes(StandardCharsets.UTF_8));
        assertThat(new StateKeeper(governor(perKeyWindow()), file, Duration.ofSeconds(15)).restore())
                .isZero();
        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .isTrue();
    }

    @Test
    void aFreshFileIsRestoredThroughTheKeeper() throws Exception {
        clock.advance(Duration.ofSeconds(5));
        governor(perKeyWindow());
        for (int i = 0; i < 10; i++) {
            governor.tryAdmit(call("k_1"), Demand.oneRequest()).permit().settle(Usage.NONE);
        }
        StateFile file = new StateFile(dir.resolve("svc.state.json"));
        new StateKeeper(governor, file, Duration.ofSeconds(15)).save();
        clock.advance(Duration.ofSeconds(1));
        assertThat(new StateKeeper(governor(perKeyWindow()), file, Duration.ofSeconds(15)).restore())
                .isEqualTo(1);
        assertThat(governor.tryAdmit(call("k_1"), Demand.oneRequest()).isAdmitted())
                .isFalse();
    }
}
