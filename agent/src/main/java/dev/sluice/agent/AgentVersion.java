package dev.sluice.agent;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of this agent build, from a resource filtered at build time. */
public final class AgentVersion {

    private static final String VERSION = load();

    private AgentVersion() {}

    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = AgentVersion.class.getResourceAsStream("sluice-agent.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
