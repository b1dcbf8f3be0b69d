package dev.sluice.config;

/** How much the agent itself logs (its decisions, learned limits, faults). */
public enum LogLevel implements ConfigNamed {
    ERROR("error"),
    WARN("warn"),
    /** The default: start-up, config changes, learned limits, rate-limited fault reports. */
    INFO("info"),
    /** Every admission decision. */
    DEBUG("debug"),
    /** Every bucket operation; for diagnosing Sluice itself. */
    TRACE("trace");

    private final String configName;

    LogLevel(String configName) {
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
