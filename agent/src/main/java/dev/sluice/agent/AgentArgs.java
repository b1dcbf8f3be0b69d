package dev.sluice.agent;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The options after {@code -javaagent:sluice-agent.jar=}: {@code key=value} pairs separated by
 * commas, e.g. {@code config=/etc/sluice.yaml,log=debug}. Kept raw: the config module gives them
 * their meaning (they take precedence over system properties, environment and file).
 */
public final class AgentArgs {

    private final Map<String, String> values;

    private AgentArgs(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /** Parses the agent's option string; {@code null} or blank gives no options. */
    public static AgentArgs parse(String raw) {
        Map<String, String> values = new LinkedHashMap<>();
        if (raw != null) {
            for (String part : raw.split(",")) {
                String trimmed = part.trim();
                if (trimmed.isEmpty()) {
                    continue;
                }
                int eq = trimmed.indexOf('=');
                String key =
                        (eq < 0 ? trimmed : trimmed.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
                String value = eq < 0 ? "true" : trimmed.substring(eq + 1).trim();
                values.put(key, value);
            }
        }
        return new AgentArgs(values);
    }

    /** The value of an option, or null. */
    public String get(String key) {
        return values.get(key);
    }

    /** Every option, in the order given. */
    public Map<String, String> asMap() {
        return values;
    }
}
