package dev.sluice.config;

/**
 * A choice a setting offers, by the name the configuration writes it with. The schema and the
 * binder read choices through it rather than through a {@code Function} per enum: a method
 * reference is a class the JVM spins as the agent starts, on the application's start-up.
 */
public interface ConfigNamed {

    /** The name in the configuration: {@code enforce}, {@code token_bucket}. */
    String configName();
}
