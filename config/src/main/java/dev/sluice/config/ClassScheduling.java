package dev.sluice.config;

/** How the scheduler chooses between traffic classes that all have calls waiting. */
public enum ClassScheduling implements ConfigNamed {
    /** The class with the highest priority always goes first; lower classes get what is left. The default. */
    STRICT("strict"),
    /** Classes share capacity in proportion to their priorities, so batch traffic is never starved. */
    WEIGHTED("weighted");

    private final String configName;

    ClassScheduling(String configName) {
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
