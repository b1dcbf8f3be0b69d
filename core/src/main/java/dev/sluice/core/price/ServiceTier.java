package dev.sluice.core.price;

import java.util.Locale;

/**
 * The service tier a call runs in, which changes what it costs: {@code service_tier} in an OpenAI
 * request ({@code flex}, {@code priority}; {@code auto}, {@code default} and {@code scale} are
 * standard) or in Anthropic's answer ({@code standard}, {@code priority}, {@code batch}). A price
 * holds a factor for each tier other than standard ({@link Price#factor}).
 */
public enum ServiceTier {
    STANDARD("standard"),
    FLEX("flex"),
    BATCH("batch"),
    PRIORITY("priority");

    private final String configName;

    ServiceTier(String configName) {
        this.configName = configName;
    }

    /** The tier's name in a price's {@code serviceTiers}. */
    public String configName() {
        return configName;
    }

    /** The tier a provider's word names; standard for null and for any word not priced apart. */
    public static ServiceTier of(String word) {
        if (word == null) {
            return STANDARD;
        }
        switch (word.trim().toLowerCase(Locale.ROOT)) {
            case "flex":
                return FLEX;
            case "batch":
                return BATCH;
            case "priority":
                return PRIORITY;
            default:
                return STANDARD;
        }
    }
}
