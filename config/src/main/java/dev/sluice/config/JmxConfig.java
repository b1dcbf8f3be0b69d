package dev.sluice.config;

/** Whether the agent registers its MXBeans (domain {@code dev.sluice}). */
public final class JmxConfig {
    private static final JmxConfig ENABLED = new JmxConfig(true);
    private static final JmxConfig DISABLED = new JmxConfig(false);
    private static final JmxConfig DEFAULTS = new Builder().buildUnchecked();

    private final boolean enabled;

    private JmxConfig(boolean enabled) {
        this.enabled = enabled;
    }

    /** The default: MXBeans registered, so operators can read and tune without a restart. */
    public static JmxConfig defaults() {
        return DEFAULTS;
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

    /** What the binder fills in; the section has one setting, so code uses {@link #of(boolean)}. */
    static final class Builder {
        // Default and docs: ConfigSchema.JMX.
        boolean enabled;

        Builder() {
            ConfigSchema.JMX.applyDefaults(this);
        }

        Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        JmxConfig buildUnchecked() {
            return of(enabled);
        }
    }
}
