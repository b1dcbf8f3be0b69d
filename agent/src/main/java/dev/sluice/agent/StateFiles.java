package dev.sluice.agent;

import dev.sluice.config.SluiceConfig;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where the state file lives. {@code auto}: {@code <java.io.tmpdir>/sluice/<service>.state.json},
 * where the service is named after what the JVM runs (its main class, or its jar), so a restart of
 * the same service finds its file and two services on one host do not share one. {@code off}: none.
 * Anything else is a path.
 */
final class StateFiles {

    private StateFiles() {}

    /** The file, or null for {@code off}. */
    static Path resolve(String setting) {
        if (SluiceConfig.STATE_FILE_OFF.equals(setting)) {
            return null;
        }
        if (!SluiceConfig.STATE_FILE_AUTO.equals(setting)) {
            return Paths.get(setting);
        }
        return Paths.get(
                System.getProperty("java.io.tmpdir"),
                "sluice",
                serviceName(System.getProperty("sun.java.command")) + ".state.json");
    }

    /** {@code com.acme.Main --port 8080} gives {@code com.acme.Main}; {@code /opt/app/service.jar} gives {@code service.jar}. */
    static String serviceName(String command) {
        if (command == null || command.trim().isEmpty()) {
            return "jvm";
        }
        String first = command.trim().split("\\s+")[0];
        int slash = Math.max(first.lastIndexOf('/'), first.lastIndexOf('\\'));
        String name = first.substring(slash + 1);
        StringBuilder safe = new StringBuilder();
        for (int i = 0; i < name.length() && safe.length() < 100; i++) {
            char c = name.charAt(i);
            safe.append(Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_' ? c : '_');
        }
        return safe.length() == 0 ? "jvm" : safe.toString();
    }
}
