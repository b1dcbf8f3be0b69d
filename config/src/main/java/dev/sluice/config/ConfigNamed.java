package dev.sluice.config;

import java.util.ArrayList;
import java.util.List;

/**
 * A choice a setting offers, by the name the configuration writes it with. The schema and the
 * binder read choices through it rather than through a {@code Function} per enum: a method
 * reference is a class the JVM spins as the agent starts, on the application's start-up.
 */
public interface ConfigNamed {

    /** The name in the configuration: {@code enforce}, {@code token_bucket}. */
    String configName();

    /** The names of {@code values}, in their order: what a message lists as allowed. */
    static List<String> names(ConfigNamed[] values) {
        List<String> names = new ArrayList<>(values.length);
        for (ConfigNamed v : values) {
            names.add(v.configName());
        }
        return names;
    }

    /** The one of {@code values} the configuration names {@code name}, or null. */
    static <E extends ConfigNamed> E named(E[] values, String name) {
        for (E v : values) {
            if (v.configName().equals(name)) {
                return v;
            }
        }
        return null;
    }
}
