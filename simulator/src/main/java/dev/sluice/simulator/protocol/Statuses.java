package dev.sluice.simulator.protocol;

import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.limit.LimitStatus;
import java.time.Duration;
import java.util.List;

/** Picks, among several limits of a dimension, the one a provider's headers would describe. */
public final class Statuses {
    private Statuses() {}

    /**
     * The most restrictive limit of {@code dimension}: fewest remaining, then longest until full.
     * Null when the dimension is not limited.
     */
    public static LimitStatus tightest(List<LimitStatus> statuses, Dimension dimension) {
        LimitStatus best = null;
        for (LimitStatus s : statuses) {
            if (s.limit().dimension() != dimension) {
                continue;
            }
            if (best == null
                    || s.remaining() < best.remaining()
                    || (s.remaining() == best.remaining() && s.untilFull().compareTo(best.untilFull()) > 0)) {
                best = s;
            }
        }
        return best;
    }

    /** Whole seconds, rounded up, at least 1: what {@code retry-after} carries. */
    public static long retryAfterSeconds(Duration wait) {
        long seconds = (wait.toMillis() + 999) / 1000;
        return Math.max(1, seconds);
    }

    /** Milliseconds, rounded up, at least 1: what {@code retry-after-ms} carries. */
    public static long retryAfterMillis(Duration wait) {
        return Math.max(1, (wait.toNanos() + 999_999) / 1_000_000);
    }

    /** "per min (RPM)"-style wording of a limit's window for messages. */
    public static String perWindow(dev.sluice.simulator.Limit limit) {
        long seconds = limit.window().getSeconds();
        if (seconds == 60 && limit.window().getNano() == 0) {
            return "per min";
        }
        if (seconds == 86_400 && limit.window().getNano() == 0) {
            return "per day";
        }
        if (seconds == 1 && limit.window().getNano() == 0) {
            return "per second";
        }
        return "per " + dev.sluice.simulator.Durations.compact(limit.window());
    }
}
