package dev.sluice.config;

/**
 * A level of the hierarchy a limit can be declared at. A limit at a level gets one bucket per
 * distinct value of that level (one per tenant, per API key, ...), except {@link #ORGANIZATION},
 * which is one bucket for the whole JVM (or fleet, with a shared store).
 */
public enum ScopeLevel implements ConfigNamed {
    ORGANIZATION("organization"),
    TENANT("tenant"),
    TEAM("team"),
    API_KEY("api_key"),
    MODEL_PROFILE("model_profile"),
    PROVIDER_DEPLOYMENT("provider_deployment");

    private final String configName;

    ScopeLevel(String configName) {
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
