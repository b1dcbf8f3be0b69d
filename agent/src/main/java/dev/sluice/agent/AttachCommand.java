package dev.sluice.agent;

import java.io.File;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.Map;
import java.util.StringJoiner;

/**
 * {@code java -jar sluice-agent.jar attach <pid> [config]}: installs this agent into a running JVM
 * through the Attach API, as if it had started with {@code -javaagent}. Classes already loaded are
 * retransformed and the hooks sit on the execution path, so HTTP clients and SDK clients built
 * before the attach are governed from their next call on.
 *
 * <p>The optional second argument is a config file (made absolute: the target resolves paths
 * against its own working directory) or agent options as after {@code -javaagent:...=}, e.g.
 * {@code config=/etc/sluice.yaml,mode=observe}. Before loading, the target's system properties say
 * whether the agent already runs there; after loading, the agent's own report says whether it
 * governs or, with an invalid config, runs ungoverned.
 *
 * <p>Exit status: 0 attached and governing; 1 could not attach, or the agent does not govern; 2
 * bad arguments; 3 the agent already runs in that JVM (nothing was loaded).
 */
final class AttachCommand {

    static final int ATTACHED = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final int ALREADY_RUNNING = 3;

    private AttachCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 2 || args.length > 3) {
            usage(err);
            return USAGE;
        }
        long pid;
        try {
            pid = Long.parseLong(args[1]);
        } catch (NumberFormatException notANumber) {
            pid = -1;
        }
        if (pid <= 0) {
            err.println("sluice attach: '" + args[1] + "' is not a process id");
            usage(err);
            return USAGE;
        }
        String options;
        try {
            options = args.length == 3 ? agentOptions(args[2], Paths.get("").toAbsolutePath()) : null;
        } catch (IllegalArgumentException bad) {
            err.println("sluice attach: " + bad.getMessage());
            return USAGE;
        }
        if (pid == ProcessHandle.current().pid()) {
            err.println("sluice attach: " + pid + " is this command's own JVM; give the pid of the service to govern");
            return USAGE;
        }
        if (!ProcessHandle.of(pid).isPresent()) {
            err.println("sluice attach: no process with pid " + pid + " (list JVMs with jps)");
            return FAILED;
        }
        Path jar = agentJar();
        if (jar == null) {
            err.println("sluice attach: run it from the agent jar: java -jar sluice-agent.jar attach <pid> [config]");
            return FAILED;
        }
        if (!ModuleLayer.boot().findModule("jdk.attach").isPresent()) {
            err.println("sluice attach: this Java runtime (" + System.getProperty("java.home") + ") has no jdk.attach"
                    + " module; run the command with a JDK's java");
            return FAILED;
        }
        return TargetJvm.attach(pid, jar, options, out, err);
    }

    /**
     * The options handed to the agent: a config file becomes {@code config=<absolute path>};
     * options ({@code key=value,...}) pass as they are, with a relative {@code config} made absolute.
     *
     * @throws IllegalArgumentException for a config file that cannot be read or cannot be named in options
     */
    static String agentOptions(String argument, Path workingDirectory) {
        String text = argument.trim();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("the config argument is empty");
        }
        if (!text.contains("=")) {
            return "config=" + configFile(text, workingDirectory);
        }
        StringJoiner joined = new StringJoiner(",");
        for (Map.Entry<String, String> option : AgentArgs.parse(text).asMap().entrySet()) {
            String value = option.getKey().equals("config")
                    ? configFile(option.getValue(), workingDirectory)
                    : option.getValue();
            joined.add(option.getKey() + "=" + value);
        }
        return joined.toString();
    }

    private static String configFile(String name, Path workingDirectory) {
        Path file = workingDirectory.resolve(name).toAbsolutePath().normalize();
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("config file " + file + " does not exist or is not a file");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("config file " + file + " is not readable");
        }
        String path = file.toString();
        if (path.contains(",")) {
            throw new IllegalArgumentException("config file " + file + " has a comma in its path, which agent options"
                    + " cannot carry; copy or link it elsewhere");
        }
        return path;
    }

    /** The jar this command runs from, or null when it runs from a class directory (tests, an IDE). */
    private static Path agentJar() {
        try {
            CodeSource source = AttachCommand.class.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                return null;
            }
            File file = new File(source.getLocation().toURI());
            return file.isFile() && file.getName().endsWith(".jar")
                    ? file.toPath().toAbsolutePath()
                    : null;
        } catch (URISyntaxException | IllegalArgumentException | SecurityException unknown) {
            return null;
        }
    }

    static void usage(PrintStream out) {
        out.println("usage: java -jar sluice-agent.jar attach <pid> [config-file | agent-options]");
        out.println("  installs the agent into the running JVM <pid> (same user, same container); clients it");
        out.println("  already built are governed from their next call. agent-options as after -javaagent:...=,");
        out.println("  e.g. config=/etc/sluice.yaml,log=debug");
        out.println("  exit status: 0 attached, 1 failed or ungoverned, 2 bad arguments, 3 already running there");
    }
}
