package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.testing.Prerequisites;
import java.io.File;
import java.io.IOException;
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
 * One Spring application of {@code ../apps} run in a JVM of its own, with or without
 * {@code -javaagent:sluice-agent.jar}, on the class path its module wrote ({@code
 * target/app.classpath}) as narrowed by a {@link Variant}, and what it printed. The application
 * reports one line {@code SUMMARY {json}}.
 */
final class SpringApp {

    static final Path AGENT_JAR = Paths.get(
                    System.getProperty("sluice.agent.jar", "../../agent/target/sluice-agent.jar"))
            .toAbsolutePath();
    static final Path APPS =
            Paths.get(System.getProperty("sluice.spring.apps", "../apps")).toAbsolutePath();

    /**
     * Which HTTP clients the application finds on its class path: Spring picks its client by what
     * is there (RestClient: Apache HttpClient 5, Jetty, Reactor Netty, then the JDK client; WebClient:
     * Reactor Netty, Jetty, HC5 reactive, then the JDK client). Each variant drops the jars of the
     * clients it does not use from the app's one resolved class path.
     */
    enum Variant {
        /** Spring's default when no other client is there: the JDK HttpClient for RestClient and WebClient. */
        JDK_CLIENT(".*/(httpclient5|httpcore5[^/]*|reactor-netty[^/]*|netty-[^/]*)-[0-9][^/]*\\.jar"),
        /** Apache HttpClient 5 for RestClient (sync calls); streams stay on the JDK client (no httpcore5-reactive). */
        HTTPCLIENT5(".*/(reactor-netty[^/]*|netty-[^/]*)-[0-9][^/]*\\.jar"),
        /** Reactor Netty for RestClient and WebClient. */
        REACTOR_NETTY(".*/(httpclient5|httpcore5[^/]*)-[0-9][^/]*\\.jar");

        final String excluded;

        Variant(String excluded) {
            this.excluded = excluded;
        }
    }

    private final String app;
    private final String mainClass;
    private Variant variant = Variant.JDK_CLIENT;
    private boolean agent;
    private String agentOptions;
    private final Map<String, String> systemProperties = new LinkedHashMap<>();
    private final List<String> springArgs = new ArrayList<>();
    private Duration timeout = Duration.ofMinutes(2);
    private boolean executableJar;
    private String javaHome = System.getProperty("java.home");

    private SpringApp(String app, String mainClass) {
        this.app = app;
        this.mainClass = mainClass;
    }

    /** The Spring AI 1.1 on Boot 3.5 application. */
    static SpringApp springAi1() {
        return new SpringApp("boot3-spring-ai1", "dev.sluice.springtests.ai1.SpringAiApp");
    }

    /** The Spring AI 2.0 on Boot 4.0 application (openai-java underneath). */
    static SpringApp springAi2() {
        return new SpringApp("boot4-spring-ai2", "dev.sluice.springtests.ai2.SpringAiApp");
    }

    /**
     * Runs the module's executable jar ({@code java -jar}, nested jars under Boot's own class
     * loader, as a Boot service ships) instead of the flat class path; the default variant only.
     */
    SpringApp executableJar() {
        this.executableJar = true;
        return this;
    }

    /** Runs on the JDK at this home (the test JVM's by default); skips the test when it is absent (fails it in CI). */
    SpringApp javaHome(String home) {
        Prerequisites.require(
                home != null && Files.isExecutable(Paths.get(home, "bin", "java")),
                "no JDK at " + home + " (-Dsluice.jdk25.home=...)");
        this.javaHome = home;
        return this;
    }

    SpringApp variant(Variant value) {
        this.variant = value;
        return this;
    }

    SpringApp agent(boolean on, String options) {
        this.agent = on;
        this.agentOptions = options;
        return this;
    }

    SpringApp systemProperty(String name, String value) {
        systemProperties.put(name, value);
        return this;
    }

    /** A Spring property, as a command-line argument ({@code --name=value}). */
    SpringApp property(String name, Object value) {
        springArgs.add("--" + name + "=" + value);
        return this;
    }

    SpringApp timeout(Duration value) {
        this.timeout = value;
        return this;
    }

    String classPath() throws IOException {
        Path module = APPS.resolve(app);
        Path file = module.resolve("target/app.classpath");
        assertThat(file)
                .as("the app's class path (its module's build writes it)")
                .exists();
        List<String> entries = new ArrayList<>();
        entries.add(module.resolve("target/classes").toString());
        Arrays.stream(Files.readString(file).trim().split(File.pathSeparator))
                .filter(e -> !e.isBlank() && !e.matches(variant.excluded))
                .forEach(entries::add);
        return String.join(File.pathSeparator, entries);
    }

    List<String> command() throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(javaHome, "bin", "java").toString());
        cmd.add("-Xmx512m");
        cmd.add("-XX:TieredStopAtLevel=1"); // the apps run seconds: C1 only starts Spring faster on 2 cores
        if (agent) {
            assertThat(AGENT_JAR).as("the agent jar (mvn package builds it)").exists();
            cmd.add("-javaagent:" + AGENT_JAR + (agentOptions == null ? "" : "=" + agentOptions));
        }
        systemProperties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        // a fresh tmpdir per run: nothing learned by an earlier run (Sluice's state file) carries over
        cmd.add("-Djava.io.tmpdir=" + Files.createTempDirectory("sluice-spring-"));
        if (executableJar) {
            try (var jars = Files.list(APPS.resolve(app).resolve("target"))) {
                Path jar = jars.filter(j -> j.getFileName().toString().matches("sluice-spring-app-.*-SNAPSHOT\\.jar"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no executable jar in " + app + "/target (mvn package)"));
                cmd.add("-jar");
                cmd.add(jar.toString());
            }
        } else {
            cmd.add("-cp");
            cmd.add(classPath());
            cmd.add(mainClass);
        }
        cmd.add("--spring.main.banner-mode=off");
        cmd.addAll(springArgs);
        return cmd;
    }

    Result run() throws IOException, InterruptedException {
        Path out = Files.createTempFile("sluice-spring-", ".out");
        Path err = Files.createTempFile("sluice-spring-", ".err");
        Process p = new ProcessBuilder(command())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        boolean exited = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!exited) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        Result r = new Result(
                exited ? p.exitValue() : -1,
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        assertThat(exited)
                .as("the app ended within %s; stderr:%n%s", timeout, r.stderr)
                .isTrue();
        assertThat(r.exitCode)
                .as("exit code; stdout:%n%s%nstderr:%n%s", r.stdout, r.stderr)
                .isZero();
        return r;
    }

    static final class Result {
        final int exitCode;
        final String stdout;
        final String stderr;
        final JsonNode summary;

        Result(int exitCode, String stdout, String stderr) throws IOException {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
            String line = stdout.lines()
                    .filter(l -> l.startsWith("SUMMARY "))
                    .reduce((a, b) -> b)
                    .orElse(null);
            this.summary = line == null ? null : new ObjectMapper().readTree(line.substring("SUMMARY ".length()));
        }

        long completed() {
            return summary.get("completed").asLong();
        }

        /** A number in Sluice's Governor MBean section, or a map entry of one ({@code RetryLayers}, ...). */
        long sluice(String attribute) {
            JsonNode n = summary.path("sluice").path(attribute);
            return n.isMissingNode() ? 0 : n.asLong();
        }

        Map<String, Long> sluiceMap(String attribute) {
            Map<String, Long> out = new LinkedHashMap<>();
            summary.path("sluice")
                    .path(attribute)
                    .fields()
                    .forEachRemaining(e -> out.put(e.getKey(), e.getValue().asLong()));
            return out;
        }

        String failures() {
            return summary.get("failures").toString() + " " + summary.get("notes");
        }

        /** How many stderr lines contain this text. */
        long stderrLines(String text) {
            return stderr.lines().filter(l -> l.contains(text)).count();
        }
    }

    @Override
    public String toString() {
        return app + "/" + variant + (agent ? " with agent" : " without agent");
    }

    static String joinArgs(List<String> args) {
        return args.stream().collect(Collectors.joining(" "));
    }
}
