package dev.sluice.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's logger (SLF4J with slf4j-simple, both relocated into the agent), created on first
 * use so a quiet start-up never pays for logging initialisation. Logs go to stderr at the level of
 * the {@code log} agent option or the config's {@code logLevel} ({@code -Dsluice.logLevel}), {@code warn} by
 * default, so the start line is the only line a healthy start prints.
 */
public final class AgentLog {

    // Relocated by the shade plugin with the rest of SLF4J: these never touch the application's.
    private static final String LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";
    private static final String FILE_PROPERTY = "org.slf4j.simpleLogger.logFile";
    private static final String THREAD_NAME_PROPERTY = "org.slf4j.simpleLogger.showThreadName";

    private static volatile String level = "warn";

    private AgentLog() {}

    /** Whether {@link #LEVEL_PROPERTY} holds a level set here, which a later {@link #configure} may change. */
    private static boolean levelPropertySetHere;

    /**
     * Sets the level, and SLF4J's properties at once: the core's loggers may start SLF4J before
     * this class's own logger does (the state file's line, a budget's), and slf4j-simple reads its
     * properties only when it starts; without them it logs at {@code info}, not at the agent's level.
     * A property the user set ({@code -Dorg.slf4j.simpleLogger.*}, relocated) is left alone.
     */
    static synchronized void configure(String requestedLevel) {
        if (requestedLevel != null && !requestedLevel.isEmpty()) {
            level = requestedLevel;
        }
        if (levelPropertySetHere || System.getProperty(LEVEL_PROPERTY) == null) {
            System.setProperty(LEVEL_PROPERTY, level);
            levelPropertySetHere = true;
        }
        if (System.getProperty(FILE_PROPERTY) == null) {
            System.setProperty(FILE_PROPERTY, "System.err");
        }
        if (System.getProperty(THREAD_NAME_PROPERTY) == null) {
            System.setProperty(THREAD_NAME_PROPERTY, "false");
        }
    }

    /** Whether debug logging was asked for; checked before anything that would initialise logging. */
    static boolean isDebug() {
        return "debug".equalsIgnoreCase(level) || "trace".equalsIgnoreCase(level);
    }

    public static Logger get() {
        return Holder.LOGGER;
    }

    private static final class Holder {
        static final Logger LOGGER = create();

        private static Logger create() {
            configure(null);
            return LoggerFactory.getLogger("sluice");
        }
    }
}
