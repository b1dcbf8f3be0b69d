package dev.sluice.config;

/** How a limit's capacity comes back over time. */
public enum Algorithm implements ConfigNamed {
    /** Continuous refill at capacity per window: a per-minute limit is also smooth within the minute. */
    TOKEN_BUCKET("token_bucket"),
    /** Counts reset at the end of each window aligned on the epoch (minute, hour boundaries). */
    FIXED_WINDOW("fixed_window"),
    /** Counts reset once a day at a given local time in a given zone (midnight Pacific, ...). */
    DAILY_RESET("daily_reset"),
    /**
     * Counts reset at the start of each calendar period (hour, day, week, month) at a local time
     * in a zone; set by a limit's {@code period}.
     */
    CALENDAR("calendar");

    private final String configName;

    Algorithm(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }
}
