package dev.sluice.config;

/** Whether the agent registers its MXBeans (domain {@code dev.sluice}). */
public final class JmxConfig {
    private static final JmxConfig ENABLED = new JmxConfig(true);
    private static final JmxConfig DISABLED = new JmxConfig(false);

    private final boolean enabled;

    private JmxConfig(boolean enabled) {
        this.enabled = enabled;
    }

    /** The default: MXBeans registered, so operators can read and tune without a restart. */
    public static JmxConfig defaults() {
        return ENABLED;
    }

    public static JmxConfig of(boolean enabled) {
        return enabled ? ENABLED : DISABLED;
    }

    public boolean enabled() {
        return enabled;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JmxConfig && ((JmxConfig) o).enabled == enabled;
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(enabled);
    }

    @Override
    public String toString() {
        return "JmxConfig{enabled=" + enabled + "}";
    }
}
