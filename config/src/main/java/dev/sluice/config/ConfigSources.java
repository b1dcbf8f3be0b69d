package dev.sluice.config;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The inputs a configuration is loaded from, captured once so that loading is repeatable (a
 * JMX reload calls {@link ConfigLoader#load(ConfigSources)} again with the same sources, which
 * re-reads the file). Only the relevant entries are kept: system properties starting with
 * {@code sluice.} and environment variables starting with {@code SLUICE_}. Nothing here reads
 * the process environment except {@link #fromRuntime(String)}, so tests control every input.
 */
public final class ConfigSources {
    static final String PROPERTY_PREFIX = "sluice.";
    static final String ENV_PREFIX = "SLUICE_";

    private final String agentArgs;
    private final Map<String, String> systemProperties;
    private final Map<String, String> env;
    private final Path file;

    private ConfigSources(Builder b) {
        this.agentArgs = b.agentArgs;
        this.systemProperties = Collections.unmodifiableMap(new TreeMap<>(b.systemProperties));
        this.env = Collections.unmodifiableMap(new TreeMap<>(b.env));
        this.file = b.file;
    }

    /** No arguments, properties, environment or file: loading gives the defaults. */
    public static ConfigSources none() {
        return builder().build();
    }

    /** This JVM's system properties and environment, with the agent argument string (may be null). */
    public static ConfigSources fromRuntime(String agentArgs) {
        return builder()
                .agentArgs(agentArgs)
                .systemProperties(System.getProperties())
                .env(System.getenv())
                .build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** What followed {@code =} in {@code -javaagent:sluice-agent.jar=...}: comma-separated {@code key=value} pairs; may be null. */
    public String agentArgs() {
        return agentArgs;
    }

    /** The {@code sluice.*} system properties, sorted by name. */
    public Map<String, String> systemProperties() {
        return systemProperties;
    }

    /** The {@code SLUICE_*} environment variables, sorted by name. */
    public Map<String, String> env() {
        return env;
    }

    /** A config file to use when no argument, property or variable names one. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ConfigSources)) {
            return false;
        }
        ConfigSources s = (ConfigSources) o;
        return Objects.equals(agentArgs, s.agentArgs)
                && systemProperties.equals(s.systemProperties)
                && env.equals(s.env)
                && Objects.equals(file, s.file);
    }

    @Override
    public int hashCode() {
        return Objects.hash(agentArgs, systemProperties, env, file);
    }

    @Override
    public String toString() {
        // Names only: values may hold a Redis password.
        return "ConfigSources{agentArgs=" + (agentArgs == null ? "none" : "given") + ", systemProperties="
                + systemProperties.keySet() + ", env=" + env.keySet() + ", file=" + file + "}";
    }

    /** Builds {@link ConfigSources}; everything is optional. */
    public static final class Builder {
        private String agentArgs;
        private final Map<String, String> systemProperties = new TreeMap<>();
        private final Map<String, String> env = new TreeMap<>();
        private Path file;

        private Builder() {}

        public Builder agentArgs(String agentArgs) {
            this.agentArgs = agentArgs;
            return this;
        }

        /** Keeps a snapshot of the properties whose names start with {@code sluice.}. */
        public Builder systemProperties(Properties properties) {
            for (String name : properties.stringPropertyNames()) {
                systemProperty(name, properties.getProperty(name));
            }
            return this;
        }

        /** One system property; ignored unless its name starts with {@code sluice.}. */
        public Builder systemProperty(String name, String value) {
            if (name.startsWith(PROPERTY_PREFIX) && value != null) {
                systemProperties.put(name, value);
            }
            return this;
        }

        /** Keeps a snapshot of the variables whose names start with {@code SLUICE_}. */
        public Builder env(Map<String, String> env) {
            for (Map.Entry<String, String> variable : env.entrySet()) {
                envVariable(variable.getKey(), variable.getValue());
            }
            return this;
        }

        /** One environment variable; ignored unless its name starts with {@code SLUICE_}. */
        public Builder envVariable(String name, String value) {
            if (name.startsWith(ENV_PREFIX) && value != null) {
                env.put(name, value);
            }
            return this;
        }

        /** A config file used when no higher source names one (e.g. a default location). */
        public Builder file(Path file) {
            this.file = file;
            return this;
        }

        public ConfigSources build() {
            return new ConfigSources(this);
        }
    }
}
