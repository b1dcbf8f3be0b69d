package dev.sluice.agent;

import java.text.MessageFormat;
import java.util.MissingResourceException;
import java.util.ResourceBundle;

/**
 * The {@link System.Logger} the agent's shaded libraries get instead of the JDK's (see {@link
 * LibraryLoggers}): their messages go to the agent's own log, named after the library's logger,
 * and nothing touches {@code java.util.logging}. Never throws into the library. Public because the
 * rewritten library classes call {@link #named} from their own packages.
 */
public final class AgentSystemLogger implements System.Logger {

    private final String name;

    private AgentSystemLogger(String name) {
        this.name = name;
    }

    /** What a rewritten {@code System.getLogger(name)} call returns. */
    public static System.Logger named(String name) {
        return new AgentSystemLogger(name);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean isLoggable(Level level) {
        org.slf4j.event.Level to = slf4j(level);
        return to != null && AgentLog.get().isEnabledForLevel(to);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
        if (isLoggable(level)) {
            emit(level, localized(bundle, message), thrown);
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (isLoggable(level)) {
            emit(level, formatted(localized(bundle, format), params), null);
        }
    }

    private void emit(Level level, String message, Throwable thrown) {
        AgentLog.get().atLevel(slf4j(level)).setCause(thrown).log(name + ": " + message);
    }

    /** The SLF4J level of a {@code System.Logger} level; null for {@code OFF}. */
    private static org.slf4j.event.Level slf4j(Level level) {
        switch (level) {
            case ALL:
            case TRACE:
                return org.slf4j.event.Level.TRACE;
            case DEBUG:
                return org.slf4j.event.Level.DEBUG;
            case INFO:
                return org.slf4j.event.Level.INFO;
            case WARNING:
                return org.slf4j.event.Level.WARN;
            case ERROR:
                return org.slf4j.event.Level.ERROR;
            default:
                return null;
        }
    }

    /** As {@code java.util.logging} formats: a pattern it cannot read is logged as it is. */
    private static String formatted(String pattern, Object... params) {
        if (pattern == null || params == null || params.length == 0) {
            return pattern;
        }
        try {
            return MessageFormat.format(pattern, params);
        } catch (IllegalArgumentException unreadable) {
            return pattern;
        }
    }

    private static String localized(ResourceBundle bundle, String key) {
        if (bundle == null || key == null) {
            return key;
        }
        try {
            return bundle.getString(key);
        } catch (MissingResourceException | ClassCastException absent) {
            return key;
        }
    }
}
