package dev.sluice.config;

/** What a limit counts. Names are the ones used in config files and in JMX. */
public enum Dimension implements ConfigNamed {
    /** Calls (attempts that reach the provider, or admissions for Sluice's own limits). */
    REQUESTS("requests"),
    /** Prompt tokens, counted the way the provider counts them at admission. */
    INPUT_TOKENS("input_tokens"),
    /** Completion tokens: reserved from max tokens or a learned estimate, settled from usage. */
    OUTPUT_TOKENS("output_tokens"),
    /** Input plus output tokens. */
    TOTAL_TOKENS("total_tokens"),
    /** Calls in flight at once; released when the response body or stream ends. */
    CONCURRENCY("concurrency"),
    /** Money, in micro-USD. */
    SPEND("spend");

    private final String configName;

    Dimension(String configName) {
        this.configName = configName;
    }

    /** The name used in config files, JMX and rejection bodies. */
    @Override
    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }

    /** The dimension with this config name, or null. */
    public static Dimension fromConfigName(String name) {
        return ConfigNamed.named(values(), name);
    }
}
