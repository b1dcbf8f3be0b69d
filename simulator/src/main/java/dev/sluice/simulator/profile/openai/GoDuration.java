package dev.sluice.simulator.profile.openai;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * Durations as Go prints them, the format of OpenAI's {@code x-ratelimit-reset-*} headers and
 * "try again in" hints: {@code 20ms}, {@code 1s}, {@code 1m2.5s}, {@code 6m0s}. Rounded to the
 * millisecond as OpenAI does.
 */
public final class GoDuration {
    private GoDuration() {}

    public static String format(Duration d) {
        long ms = Math.max(0, (d.toNanos() + 999_999) / 1_000_000);
        if (ms == 0) {
            return "0s";
        }
        if (ms < 1000) {
            return ms + "ms";
        }
        long hours = ms / 3_600_000;
        long minutes = (ms / 60_000) % 60;
        BigDecimal seconds = BigDecimal.valueOf(ms % 60_000, 3).stripTrailingZeros();
        String s = (seconds.signum() == 0 ? "0" : seconds.toPlainString()) + "s";
        if (hours > 0) {
            return hours + "h" + minutes + "m" + s;
        }
        if (minutes > 0) {
            return minutes + "m" + s;
        }
        return s;
    }
}
