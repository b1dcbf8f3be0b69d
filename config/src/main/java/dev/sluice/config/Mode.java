package dev.sluice.config;

/** How much the governor acts on its decisions. */
public enum Mode implements ConfigNamed {
    /** Decisions are applied: callers wait, or receive local rejections. The default. */
    ENFORCE("enforce"),
    /** Every decision is computed, logged and counted; nothing is delayed or rejected. */
    OBSERVE("observe"),
    /** Pass-through: exchanges are not even inspected. */
    OFF("off");

    private final String configName;

    Mode(String configName) {
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

    /** The mode with this config name, or null. */
    public static Mode fromConfigName(String name) {
        return ConfigNamed.named(values(), name);
    }
}
