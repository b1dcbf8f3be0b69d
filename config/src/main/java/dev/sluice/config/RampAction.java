package dev.sluice.config;

/** What a ramp does while one of its health thresholds is crossed. */
public enum RampAction implements ConfigNamed {
    /** Stop growing: the admitted rate stays where it is until the provider is healthy again. */
    HOLD("hold"),
    /** Step back one interval's growth at once, and again each interval while it stays crossed. */
    STEP_BACK("step_back");

    private final String configName;

    RampAction(String configName) {
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

    /** The action with this config name, or null. */
    public static RampAction fromConfigName(String name) {
        return ConfigNamed.named(values(), name);
    }
}
