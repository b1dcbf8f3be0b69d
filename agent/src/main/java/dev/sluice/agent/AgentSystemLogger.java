package dev.sluice.agent;

import java.text.MessageFormat;
import java.util.MissingResourceException;
import java.util.ResourceBundle;

/**
 * The {@link System.Logger} the agent's shaded libraries get instead of the JDK's (see {@link
 * LibraryLoggers}): their messages go to the agent's own log, named after the library's logger,
 * and nothing touches {@code java.util.logging}. Public because the rewritten library classes call
 * {@link #named} from their own packages.
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
        switch (level) {
            case ALL:
            case TRACE:
                return AgentLog.get().isTraceEnabled();
            case DEBUG:
                return AgentLog.get().isDebugEnabled();
            case INFO:
                return AgentLog.get().isInfoEnabled();
            case WARNING:
                return AgentLog.get().isWarnEnabled();
            case ERROR:
                return AgentLog.get().isErrorEnabled();
            default: // OFF
                return false;
        }
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
            String pattern = localized(bundle, format);
            emit(level, params == null || params.length == 0 ? pattern : MessageFormat.format(pattern, params), null);
        }
    }

    private void emit(Level level, String message, Throwable thrown) {
        String line = name + ": " + message;
        switch (level) {
            case ALL:
            case TRACE:
                AgentLog.get().trace(line, thrown);
                break;
            case DEBUG:
                AgentLog.get().debug(line, thrown);
                break;
            case INFO:
                AgentLog.get().info(line, thrown);
                break;
            case WARNING:
                AgentLog.get().warn(line, thrown);
                break;
            default:
                AgentLog.get().error(line, thrown);
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
