package dev.sluice.config;

/** What a call gets when Sluice itself faults while governing it. */
public enum FailMode implements ConfigNamed {
    /** The call goes through ungoverned; the fault is counted and logged. The default. */
    OPEN("open"),
    /** The call receives a local rejection. */
    CLOSED("closed");

    private final String configName;

    FailMode(String configName) {
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

    /** The fail mode with this config name, or null. */
    public static FailMode fromConfigName(String name) {
        return ConfigNamed.named(values(), name);
    }
}
