package dev.sluice.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AttemptsTest {

    @Test
    void countsTheAttemptsSent() {
        Attempts<Object> attempts = new Attempts<>();
        attempts.sending();
        attempts.sending();
        assertThat(attempts.sent()).isEqualTo(2);
    }

    @Test
    void anErrorsBodyIsKeptUntilItsResponseIsReleased() {
        Attempts<Object> attempts = new Attempts<>();
        Object refused = new Object();
        attempts.answeredWithError(refused, new byte[] {1, 2});
        assertThat(attempts.errorBody(refused)).containsExactly(1, 2);
        assertThat(attempts.errorBody(new Object())).isEmpty();
        assertThat(attempts.release(refused)).containsExactly(1, 2);
        assertThat(attempts.errorBody(refused)).isEmpty();
        assertThat(attempts.release(refused)).isNull();
    }

    @Test
    void theLastResponseNeitherHandedBackNorDiscardedIsTheHooksToRelease() {
        Attempts<Object> attempts = new Attempts<>();
        Object first = attempts.answered(new Object());
        assertThat(attempts.takeUnclaimed()).isSameAs(first);
        assertThat(attempts.takeUnclaimed()).isNull();

        Object second = attempts.answered(new Object());
        attempts.release(new Object()); // another response (a local answer) released: the attempt's is still held
        assertThat(attempts.takeUnclaimed()).isSameAs(second);

        Object third = attempts.answered(new Object());
        attempts.release(third);
        assertThat(attempts.takeUnclaimed()).isNull();
    }

    @Test
    void nothingIsKeptOnceTheCallIsOver() {
        Attempts<Object> attempts = new Attempts<>();
        Object refused = attempts.answeredWithError(new Object(), null);
        assertThat(attempts.errorBody(refused)).isEmpty();
        attempts.answeredWithError(refused, new byte[] {1});
        attempts.clear();
        assertThat(attempts.errorBody(refused)).isEmpty();
    }
}
