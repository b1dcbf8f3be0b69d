package dev.sluice.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.Prerequisites;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Runs a test application in a fresh JVM, with or without the agent, and collects what it printed. */
final class ForkedJvm {

    static final Path AGENT_JAR = Paths.get(System.getProperty("sluice.agent.jar", "target/sluice-agent.jar"))
            .toAbsolutePath();
    static final Path LIBS =
            Paths.get(System.getProperty("sluice.libs", "target/libs")).toAbsolutePath();
    static final Path TEST_CLASSES = Paths.get(System.getProperty("sluice.test.classes", "target/test-classes"))
            .toAbsolutePath();
    static final Path MAIN_CLASSES = Paths.get(System.getProperty("sluice.main.classes", "target/classes"))
            .toAbsolutePath();

    /** A JDK the tests run the applications on. */
    enum Jdk {
        JDK17(System.getProperty("sluice.jdk17.home", System.getProperty("java.home"))),
        JDK25(System.getProperty("sluice.jdk25.home", "/usr/lib/jvm/temurin-25-jdk-amd64"));

        final String home;

        Jdk(String home) {
            this.home = home;
        }

        String java() {
            Path java = Paths.get(home, "bin", "java");
            Prerequisites.require(Files.isExecutable(java), "no JDK at " + home + " (-Dsluice.jdk25.home=...)");
            return java.toString();
        }
    }

    /** What a forked JVM did. */
    static final class Result {
        final int exitCode;
        final String stdout;
        final String stderr;
        final Map<String, String> results = new LinkedHashMap<>();

        Result(int exitCode, String stdout, String stderr) {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
            for (String line : stdout.split("\n")) {
                if (line.startsWith("RESULT ")) {
                    int eq = line.indexOf('=');
                    results.put(line.substring(7, eq), line.substring(eq + 1));
                }
            }
        }

        String get(String key) {
            assertThat(results)
                    .as("result %s; stdout:%n%s%nstderr:%n%s", key, stdout, stderr)
                    .containsKey(key);
            return results.get(key);
        }

        long startLines() {
            return Arrays.stream(stderr.split("\n"))
                    .filter(l -> l.startsWith("[sluice] "))
                    .count();
        }

        Result assertOk() {
            assertThat(exitCode)
                    .as("exit code; stdout:%n%s%nstderr:%n%s", stdout, stderr)
                    .isZero();
            return this;
        }
    }

    private ForkedJvm() {}

    static String classPath(Path... entries) {
        return Arrays.stream(entries).map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    static Path[] jars(String libDir) {
        try (Stream<Path> files = Files.list(LIBS.resolve(libDir))) {
            return files.filter(p -> p.toString().endsWith(".jar")).sorted().toArray(Path[]::new);
        } catch (IOException e) {
            throw new IllegalStateException("missing test libraries in " + LIBS.resolve(libDir), e);
        }
    }

    static Path[] concat(Path[] a, Path... b) {
        Path[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    static Result run(Jdk jdk, boolean withAgent, String classPath, String mainClass, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(jdk.java());
        command.add("-Xshare:auto");
        if (withAgent) {
            // each run starts from nothing learned: the state file (stateFile: auto) lives in a fresh tmpdir
            command.add("-Djava.io.tmpdir=" + java.nio.file.Files.createTempDirectory("sluice-forked-"));
            command.add("-javaagent:" + AGENT_JAR);
        }
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(Arrays.asList(args));
        return run(command);
    }

    static Result run(List<String> command) throws Exception {
        Path out = Files.createTempFile("fork-out", ".txt");
        Path err = Files.createTempFile("fork-err", ".txt");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(
                        "forked JVM timed out: " + command + "\n" + Files.readString(out) + Files.readString(err));
            }
            return new Result(
                    process.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
