package dev.sluice.it.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.testing.Prerequisites;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs a test application (a class with a {@code main}) in a fresh JVM, with or without the Sluice
 * agent, on a chosen JDK, and collects what it printed. An application reports its figures as one
 * line {@code SUMMARY {json}} (see {@link AppReport}).
 */
public final class ForkedApp {

    public static final Path AGENT_JAR = Paths.get(
                    System.getProperty("sluice.agent.jar", "../agent/target/sluice-agent.jar"))
            .toAbsolutePath();

    /** A JDK the applications run on. */
    public enum Jdk {
        JDK17(System.getProperty("java.home")),
        JDK25(System.getProperty("sluice.jdk25.home", "/usr/lib/jvm/temurin-25-jdk-amd64"));

        private final String home;

        Jdk(String home) {
            this.home = home;
        }

        /** The java launcher; when this JDK is not installed, skips the test (visibly), or fails it in CI. */
        public String java() {
            Path java = Paths.get(home, "bin", "java");
            Prerequisites.require(Files.isExecutable(java), "no JDK at " + home + " (-Dsluice.jdk25.home=...)");
            return java.toString();
        }
    }

    private final Class<?> main;
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> systemProperties = new LinkedHashMap<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<String> jvmOptions = new ArrayList<>();
    private boolean withAgent;
    private String agentArgs;
    private Jdk jdk = Jdk.JDK17;
    private Duration timeout = Duration.ofMinutes(3);

    private ForkedApp(Class<?> main) {
        this.main = main;
    }

    public static ForkedApp of(Class<?> main) {
        return new ForkedApp(main);
    }

    /** Runs with {@code -javaagent:sluice-agent.jar} (with these options, may be null). */
    public ForkedApp withAgent(String options) {
        this.withAgent = true;
        this.agentArgs = options;
        return this;
    }

    public ForkedApp withAgent(boolean on) {
        this.withAgent = on;
        return this;
    }

    public ForkedApp args(Object... values) {
        for (Object v : values) {
            args.add(String.valueOf(v));
        }
        return this;
    }

    public ForkedApp systemProperty(String name, String value) {
        systemProperties.put(name, value);
        return this;
    }

    /** A JVM option other than a system property ({@code -Xlog:...}), before the agent's. */
    public ForkedApp jvmOption(String option) {
        jvmOptions.add(option);
        return this;
    }

    public ForkedApp env(String name, String value) {
        env.put(name, value);
        return this;
    }

    public ForkedApp jdk(Jdk value) {
        this.jdk = value;
        return this;
    }

    public ForkedApp timeout(Duration value) {
        this.timeout = value;
        return this;
    }

    /** The command line this would run. */
    public List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.java());
        cmd.add("-Xmx512m");
        cmd.addAll(jvmOptions);
        if (withAgent) {
            assertThat(AGENT_JAR).as("the agent jar (mvn package builds it)").exists();
            cmd.add("-javaagent:" + AGENT_JAR + (agentArgs == null ? "" : "=" + agentArgs));
        }
        systemProperties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        if (!systemProperties.containsKey("java.io.tmpdir")) {
            // each run starts from nothing learned, whatever an earlier test's run of this app saved:
            // the state file (stateFile: auto) lives in the JVM's tmpdir, a fresh one per run
            try {
                cmd.add("-Djava.io.tmpdir=" + Files.createTempDirectory("sluice-forked-"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        cmd.add("-cp");
        cmd.add(applicationClassPath());
        cmd.add(main.getName());
        cmd.addAll(args);
        return cmd;
    }

    /**
     * The test class path minus Sluice's own modules: the application sees its SDKs and our test
     * applications, never the agent's classes (those come from the agent jar only).
     */
    static String applicationClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.matches(".*sluice-(agent|core|config|bootstrap|instrumentation)[^/]*\\.jar")
                        && !e.matches(
                                ".*/(agent|core|config|bootstrap|instrumentations/[^/]+)/target/(test-)?classes/?"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** Starts the JVM without waiting (late attach, long-running services). Output goes to files. */
    public Running start() throws IOException {
        Path out = Files.createTempFile("sluice-app-", ".out");
        Path err = Files.createTempFile("sluice-app-", ".err");
        ProcessBuilder pb =
                new ProcessBuilder(command()).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        return new Running(pb.start(), out, err);
    }

    /** Runs the JVM to its end (or the timeout) and returns what it printed. */
    public Result run() throws IOException, InterruptedException {
        Running r = start();
        return r.awaitExit(timeout);
    }

    /** A JVM still running. */
    public static final class Running {
        private final Process process;
        private final Path out;
        private final Path err;

        Running(Process process, Path out, Path err) {
            this.process = process;
            this.out = out;
            this.err = err;
        }

        public long pid() {
            return process.pid();
        }

        public Process process() {
            return process;
        }

        public String stdoutSoFar() throws IOException {
            return Files.readString(out, StandardCharsets.UTF_8);
        }

        public Result awaitExit(Duration timeout) throws IOException, InterruptedException {
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            Result result = new Result(
                    exited ? process.exitValue() : -1,
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8),
                    !exited);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return result;
        }

        /** Writes one line to the JVM's standard input (a start signal, say). */
        public void sendLine(String line) throws IOException {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        public void kill() {
            process.destroyForcibly();
        }
    }

    /** What a forked JVM did. */
    public static final class Result {
        private static final ObjectMapper JSON = new ObjectMapper();

        public final int exitCode;
        public final String stdout;
        public final String stderr;
        public final boolean timedOut;

        Result(int exitCode, String stdout, String stderr, boolean timedOut) {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
            this.timedOut = timedOut;
        }

        public Result assertOk() {
            assertThat(timedOut)
                    .as("timed out; stdout:%n%s%nstderr:%n%s", stdout, stderr)
                    .isFalse();
            assertThat(exitCode)
                    .as("exit code; stdout:%n%s%nstderr:%n%s", stdout, stderr)
                    .isZero();
            return this;
        }

        /** The application's {@code SUMMARY} line, parsed. */
        public JsonNode summary() {
            for (String line : stdout.split("\n")) {
                if (line.startsWith(AppReport.PREFIX)) {
                    try {
                        return JSON.readTree(line.substring(AppReport.PREFIX.length()));
                    } catch (IOException e) {
                        throw new AssertionError("bad summary line: " + line, e);
                    }
                }
            }
            throw new AssertionError("no SUMMARY line; stdout:\n" + stdout + "\nstderr:\n" + stderr);
        }

        /** The agent's start line, or null. */
        public String startLine() {
            return Arrays.stream(stderr.split("\n"))
                    .filter(l -> l.startsWith("[sluice] "))
                    .findFirst()
                    .orElse(null);
        }
    }
}
