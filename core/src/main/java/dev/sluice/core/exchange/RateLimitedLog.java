package dev.sluice.core.exchange;

import dev.sluice.core.LazyLogger;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logs a fault once per cause per period, so a failing path in a busy service cannot flood the
 * host's logs; counts are kept elsewhere.
 */
final class RateLimitedLog {

    private static final long PERIOD_NANOS = 60_000_000_000L;

    private final LazyLogger log;
    private final ConcurrentHashMap<String, Long> lastLogged = new ConcurrentHashMap<>();

    RateLimitedLog(LazyLogger log) {
        this.log = log;
    }

    void warn(String cause, String message, Throwable error) {
        long now = System.nanoTime();
        Long last = lastLogged.get(cause);
        if (last != null && now - last < PERIOD_NANOS) {
            return;
        }
        if (lastLogged.size() > 1_000) {
            lastLogged.clear();
        }
        lastLogged.put(cause, now);
        if (error != null) {
            log.get().warn("[sluice] {} (logged once a minute per cause)", message, error);
        } else {
            log.get().warn("[sluice] {} (logged once a minute per cause)", message);
        }
    }
}
