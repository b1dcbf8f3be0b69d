package dev.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class PrerequisitesTest {

    @Test
    void aPresentPrerequisiteLetsTheTestGoOn() {
        assertThatCode(() -> Prerequisites.require(true, "nothing", true)).doesNotThrowAnyException();
        assertThatCode(() -> Prerequisites.require(true, "nothing", false)).doesNotThrowAnyException();
    }

    @Test
    void aMissingPrerequisiteSkipsTheTestOutsideCi() {
        assertThatThrownBy(() -> Prerequisites.require(false, "no JDK at /nowhere", false))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("no JDK at /nowhere");
    }

    @Test
    void aMissingPrerequisiteFailsTheTestInCi() {
        assertThatThrownBy(() -> Prerequisites.require(false, "no JDK at /nowhere", true))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("no JDK at /nowhere")
                .hasMessageContaining("CI=true");
    }
}
