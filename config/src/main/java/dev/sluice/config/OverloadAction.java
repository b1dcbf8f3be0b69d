package dev.sluice.config;

/** What a traffic class does with a call it cannot queue (queue full) or whose wait ran out. */
public enum OverloadAction implements ConfigNamed {
    /** Answer with a local rejection at once. */
    REJECT("reject"),
    /** Let the call through unqueued, counted as overload (for traffic that must never be refused). */
    PASS_THROUGH("pass_through");

    private final String configName;

    OverloadAction(String configName) {
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
