package dev.sluice.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class ConnectionFailuresTest {

    @Test
    void transientConnectionFailuresMayBeRetried() {
        assertThat(ConnectionFailures.mayRetry(new IOException("Connection reset")))
                .isTrue();
        assertThat(ConnectionFailures.mayRetry(new ConnectException("Connection refused")))
                .isTrue();
        assertThat(ConnectionFailures.mayRetry(new SocketTimeoutException("Read timed out")))
                .isTrue();
    }

    @Test
    void aProtocolViolationFailsTheSameWayEveryTime() {
        assertThat(ConnectionFailures.mayRetry(new ProtocolException("Header size too big")))
                .isFalse();
        // the JDK client rethrows the failure of its selector thread wrapped in one of the caller's
        assertThat(ConnectionFailures.mayRetry(new IOException("wrapped", new ProtocolException("too big"))))
                .isFalse();
    }

    @Test
    void whatIsNotAConnectionFailureIsNotRetried() {
        assertThat(ConnectionFailures.mayRetry(new IllegalStateException("bug")))
                .isFalse();
        assertThat(ConnectionFailures.mayRetry(null)).isFalse();
    }
}
