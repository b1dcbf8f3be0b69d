package dev.sluice.simulator.protocol;

import java.time.Duration;

/**
 * How long generation takes: time to the first byte, then a latency per output token. A stream
 * sends its first event at {@code firstByte} and one token per {@code perToken}; a whole response
 * arrives at {@code firstByte + perToken * outputTokens}.
 *
 * @param firstByte time to first byte
 * @param perToken latency per output token
 */
public record Pacing(Duration firstByte, Duration perToken) {
    public static final Pacing NONE = new Pacing(Duration.ZERO, Duration.ZERO);

    /** When token {@code index} (from 1) is sent. */
    public Duration tokenAt(int index) {
        return firstByte.plus(perToken.multipliedBy(index));
    }

    /** When a response of {@code tokens} output tokens is complete. */
    public Duration total(int tokens) {
        return tokenAt(tokens);
    }

    public Pacing withExtraFirstByte(Duration extra) {
        return new Pacing(firstByte.plus(extra), perToken);
    }
}
