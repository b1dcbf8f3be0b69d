package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LastSeenTest {

    @Test
    void aKeptNullAnswerIsFoundAndAnUnaskedKeyIsNot() {
        LastSeen<String> seen = new LastSeen<>(8, 64);
        seen.keep("https://example.com/", null);

        assertThat(seen.find("https://example.com/"))
                .isNotNull()
                .extracting(e -> e.value)
                .isNull();
        assertThat(seen.find("https://example.org/")).isNull();
    }

    @Test
    void keysSharingASlotEachGetTheirOwnAnswerOrNone() {
        LastSeen<Integer> seen = new LastSeen<>(2, 64);
        for (int i = 0; i < 100; i++) {
            seen.keep("k" + i, i);
            assertThat(seen.find("k" + i).value).isEqualTo(i);
            assertThat(seen.find(new String("k" + i)))
                    .as("equal, not the same object")
                    .isNotNull();
        }
        for (int i = 0; i < 100; i++) {
            LastSeen.Entry<Integer> found = seen.find("k" + i);
            assertThat(found == null || found.value == i).as("k%d", i).isTrue();
        }
    }

    @Test
    void longKeysAreNeverKeptAndSlotsMustBeAPowerOfTwo() {
        LastSeen<Integer> seen = new LastSeen<>(4, 3);
        seen.keep("four", 4);
        assertThat(seen.find("four")).isNull();
        assertThatThrownBy(() -> new LastSeen<Integer>(6, 10)).hasMessageContaining("power of two");
    }
}
