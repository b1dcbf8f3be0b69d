package dev.sluice.config;

import java.time.Duration;
import java.util.Locale;

/**
 * An option a provider entry passes to its adapter under {@code options:}: what the protocol
 * cannot tell, such as the window of a compatible server's budget headers (Groq's request budget
 * is per day). Checked here so a mistake is reported with its path and line like any other; the
 * core's {@code AdapterSettings} reads the canonical values {@link #canonical} writes.
 */
enum AdapterOption implements ConfigNamed {
    /** The window of {@code x-ratelimit-*-requests}: {@code 60s} unless set, {@code 1d} for Groq. */
    REQUESTS_WINDOW("requestsWindow", true),
    /** The window of {@code x-ratelimit-*-tokens}: {@code 60s} unless set. */
    TOKENS_WINDOW("tokensWindow", true),
    /** Whether token budgets settle to actual usage ({@code true} unless set) or keep the admission charge. */
    TRUES_UP_TOKENS("truesUpTokens", false);

    private final String configName;
    private final boolean duration;

    AdapterOption(String configName, boolean duration) {
        this.configName = configName;
        this.duration = duration;
    }

    @Override
    public String configName() {
        return configName;
    }

    static AdapterOption fromConfigName(String name) {
        return ConfigNamed.named(values(), name);
    }

    /**
     * The value as the adapter reads it: a duration in its shortest exact form ({@code 90s},
     * {@code 1d}), {@code true} or {@code false}.
     *
     * @throws IllegalArgumentException with a message fit for a user
     */
    String canonical(String value) {
        String v = value == null ? "" : value.trim();
        if (duration) {
            Duration d = Durations.parse(v);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(Durations.format(d) + " is not allowed, must be > 0");
            }
            return Durations.format(d);
        }
        String lower = v.toLowerCase(Locale.ROOT);
        if (!lower.equals("true") && !lower.equals("false")) {
            throw new IllegalArgumentException("expected true or false, got \"" + v + "\"");
        }
        return lower;
    }
}
