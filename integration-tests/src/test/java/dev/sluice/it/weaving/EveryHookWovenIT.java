package dev.sluice.it.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.harness.ForkedApp;
import java.io.File;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every class the agent hooks, in every library version the tests run, is woven by the real agent
 * and then verified by the JVM that defines it, on JDK 17 and 25.
 *
 * <p>{@link EveryHookApp} loads each version's hooked classes in a class loader of its own, in a
 * JVM that runs the agent with {@code -XX:+BytecodeVerificationLocal} (so the JDK's own hooked
 * classes, woven or retransformed in the bootstrap loader, are verified too, as no JVM does by
 * default) and logs verification. A class file of Java 6 (HttpClient 4.5's) whose frames the
 * type-checking verifier refuses is verified again by the old verifier, which would hide a frame
 * ByteBuddy got wrong: the test fails on the JVM's {@code Fail over} line for any hooked class.
 *
 * <p>The hooked classes are read from the agent jar's instrumentations, so a class hooked later
 * fails this test until a set below covers it; only the AWS SDK's CRT clients, which no test runs,
 * are left out.
 */
class EveryHookWovenIT {

    private static final Path LIBS = Paths.get(System.getProperty("sluice.libs", "target/libs"));
    private static final Path REACTOR_LIBS =
            Paths.get(System.getProperty("sluice.reactor.libs", "target/reactor-netty-libs"));

    private static final String OKHTTP_4_PLUS = "okhttp3.internal.connection.RealCall";
    private static final String REACTOR = "reactor.netty.http.client.HttpClientFinalizer";
    private static final String EPOLL = "io.netty.channel.epoll.AbstractEpollChannel";
    private static final List<String> HC5 = Arrays.asList(
            "org.apache.hc.client5.http.impl.classic.InternalHttpClient",
            "org.apache.hc.client5.http.impl.classic.MinimalHttpClient",
            "org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient",
            "org.apache.hc.client5.http.impl.async.AbstractMinimalHttpAsyncClientBase",
            "org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy");
    private static final List<String> HC4 = Arrays.asList(
            "org.apache.http.impl.client.InternalHttpClient",
            "org.apache.http.impl.client.MinimalHttpClient",
            "org.apache.http.impl.client.AbstractHttpClient",
            "org.apache.http.impl.client.DefaultHttpRequestRetryHandler",
            "org.apache.http.impl.client.DefaultServiceUnavailableRetryStrategy");
    private static final List<String> AWS_SDK = Arrays.asList(
            "software.amazon.awssdk.http.apache.ApacheHttpClient",
            "software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient",
            "software.amazon.awssdk.core.internal.http.pipeline.stages.utils.RetryableStageHelper");
    /** Hooked, but no test runs them: the AWS SDK's CRT clients need the native aws-crt library. */
    private static final List<String> NOT_TESTED = Arrays.asList(
            "software.amazon.awssdk.http.crt.AwsCrtHttpClient",
            "software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient");

    /** One library version: the hooked classes it has, where its jars are, what of the class path it replaces. */
    private static final class LibrarySet {
        final String label;
        final List<String> classes;
        final Path jars;
        final String replaces;

        LibrarySet(String label, List<String> classes, Path jars, String replaces) {
            this.label = label;
            this.classes = classes;
            this.jars = jars;
            this.replaces = replaces;
        }

        String argument() throws Exception {
            String paths = "";
            if (jars != null) {
                try (var listed = Files.list(jars)) {
                    paths = listed.map(Path::toString)
                            .filter(p -> p.endsWith(".jar"))
                            .sorted()
                            .collect(Collectors.joining(File.pathSeparator));
                }
                assertThat(paths).as("jars of %s in %s", label, jars).isNotEmpty();
            }
            return label + "#" + String.join(",", classes) + "#" + paths + "#" + replaces;
        }
    }

    private static List<LibrarySet> sets() {
        List<String> classPathOnes = new ArrayList<>(Arrays.asList(
                OKHTTP_4_PLUS,
                "com.openai.core.http.RetryingHttpClient",
                "com.anthropic.core.http.RetryingHttpClient",
                "com.google.genai.RetryInterceptor",
                "dev.langchain4j.internal.RetryUtils$RetryPolicy",
                REACTOR,
                EPOLL));
        classPathOnes.addAll(HC5);
        classPathOnes.addAll(HC4);
        classPathOnes.addAll(AWS_SDK);
        classPathOnes.add("com.azure.core.http.policy.RetryPolicy");
        String netty = ".*/(reactor-netty|reactor-core|netty)[^/]*\\.jar";
        String hc5 = ".*/http(client|core)5[^/]*\\.jar";
        return Arrays.asList(
                new LibrarySet(
                        "jdk",
                        Arrays.asList(
                                "jdk.internal.net.http.HttpClientFacade",
                                "java.net.Socket",
                                "sun.nio.ch.SocketChannelImpl"),
                        null,
                        ""),
                // okhttp 4.12, openai-java 4.101, anthropic-java 3.14, google-genai 2.0, langchain4j 1.19,
                // reactor-netty 1.2 (netty 4.1), HttpClient 5.6 and 4.5, AWS SDK 2.59 (Apache and Netty
                // clients), azure-core 1.55
                new LibrarySet("test class path", classPathOnes, null, ""),
                new LibrarySet(
                        "okhttp 3.14",
                        Collections.singletonList("okhttp3.RealCall"),
                        LIBS.resolve("okhttp-3"),
                        ".*/(okhttp|okio)[^/]*\\.jar"),
                new LibrarySet(
                        "okhttp 5.3",
                        Collections.singletonList(OKHTTP_4_PLUS),
                        LIBS.resolve("okhttp-5"),
                        ".*/(okhttp|okio|kotlin-stdlib)[^/]*\\.jar"),
                new LibrarySet(
                        "reactor-netty 1.1", Arrays.asList(REACTOR, EPOLL), REACTOR_LIBS.resolve("1.1.22"), netty),
                new LibrarySet(
                        "reactor-netty 1.3", Arrays.asList(REACTOR, EPOLL), REACTOR_LIBS.resolve("1.3.7"), netty),
                new LibrarySet("httpclient 5.2", HC5, LIBS.resolve("hc5-5.2"), hc5),
                new LibrarySet("httpclient 5.5", HC5, LIBS.resolve("hc5-5.5"), hc5),
                new LibrarySet(
                        "spring-retry 2.0",
                        Collections.singletonList("org.springframework.retry.support.RetryTemplate"),
                        LIBS.resolve("spring-retry-2.0"),
                        ""),
                new LibrarySet(
                        "aws-sdk 2.59 clients",
                        Arrays.asList(
                                "software.amazon.awssdk.http.apache5.Apache5HttpClient",
                                "software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient"),
                        LIBS.resolve("aws-sdk-clients"),
                        ""),
                new LibrarySet(
                        "netty kqueue 4.1",
                        Collections.singletonList("io.netty.channel.kqueue.AbstractKQueueChannel"),
                        LIBS.resolve("netty-kqueue"),
                        ""));
    }

    @ParameterizedTest
    @EnumSource(ForkedApp.Jdk.class)
    void everyHookedClassOfEveryTestedVersionIsWovenAndVerified(ForkedApp.Jdk jdk) throws Exception {
        List<LibrarySet> sets = sets();
        TreeSet<String> covered = new TreeSet<>();
        sets.forEach(s -> covered.addAll(s.classes));
        List<String> hooked = hookedClasses();
        hooked.removeAll(NOT_TESTED);
        assertThat(covered).as("a set below loads every hooked class").containsAll(hooked);

        Path verification = Files.createTempFile("sluice-verification", ".log");
        ForkedApp app = ForkedApp.of(EveryHookApp.class)
                .jdk(jdk)
                .withAgent("log=debug")
                .timeout(Duration.ofMinutes(5))
                .jvmOption("-XX:+UnlockDiagnosticVMOptions")
                .jvmOption("-XX:+BytecodeVerificationLocal")
                .jvmOption("-Xlog:verification=info:file=" + verification);
        for (LibrarySet set : sets) {
            app.args(set.argument());
        }
        ForkedApp.Result r = app.run().assertOk();
        assertThat(r.stdout).contains("DONE");
        List<String> verified = Files.readAllLines(verification);
        Files.deleteIfExists(verification);

        Map<String, List<String>> wovenBySet = wovenBySet(r.stderr);
        SoftAssertions soft = new SoftAssertions();
        List<String> table = new ArrayList<>();
        for (LibrarySet set : sets) {
            for (String name : set.classes) {
                String linked = line(r.stdout, "LINKED " + set.label + " " + name + " ");
                soft.assertThat(linked)
                        .as("%s in %s loaded and linked; stdout:%n%s", name, set.label, r.stdout)
                        .isNotNull();
                String internal = name.replace('.', '/');
                List<String> woven = set.label.equals("jdk") ? allWoven(wovenBySet) : wovenBySet.get(set.label);
                String wove = woven == null
                        ? null
                        : woven.stream()
                                .filter(l -> l.contains("instrumented " + internal + " in "))
                                .findFirst()
                                .orElse(null);
                soft.assertThat(wove)
                        .as("%s in %s woven by the agent", name, set.label)
                        .isNotNull();
                soft.assertThat(verified)
                        .as("%s verified", name)
                        .anyMatch(l -> l.endsWith("End class verification for: " + name));
                table.add(String.format(
                        "%-18s %-72s %s",
                        set.label, name, linked == null ? "-" : linked.substring(linked.lastIndexOf(' ') + 1)));
            }
        }
        soft.assertThat(verified)
                .as("no hooked class was verified again by the old verifier")
                .noneMatch(l -> l.contains("Fail over class verification")
                        && covered.stream().anyMatch(l::endsWith));
        soft.assertThat(r.stderr)
                .doesNotContain("could not instrument")
                .doesNotContain("could not retransform")
                .doesNotContain("runs ungoverned");
        System.out.printf("woven and verified on %s:%n%s%n", jdk, String.join("\n", table));
        soft.assertAll();
    }

    /** The agent's {@code instrumented} lines, by the set {@link EveryHookApp} was loading when they were logged. */
    private static Map<String, List<String>> wovenBySet(String stderr) {
        Map<String, List<String>> bySet = new LinkedHashMap<>();
        String current = "before any set";
        for (String line : stderr.split("\n")) {
            if (line.startsWith("WEAVE-SET ")) {
                current = line.substring("WEAVE-SET ".length());
            } else if (line.contains("instrumented ")) {
                bySet.computeIfAbsent(current, k -> new ArrayList<>()).add(line);
            }
        }
        return bySet;
    }

    /** The JDK's classes are woven when loaded or, loaded before the agent, retransformed on its own thread. */
    private static List<String> allWoven(Map<String, List<String>> bySet) {
        List<String> all = new ArrayList<>();
        bySet.values().forEach(all::addAll);
        return all;
    }

    private static String line(String output, String prefix) {
        return Arrays.stream(output.split("\n"))
                .filter(l -> l.startsWith(prefix))
                .findFirst()
                .orElse(null);
    }

    /** The hooked classes of every instrumentation in the agent jar. */
    private static List<String> hookedClasses() throws Exception {
        Path bridge = Files.createTempFile("bridge", ".jar");
        List<String> hooked = new ArrayList<>();
        try (JarFile jar = new JarFile(ForkedApp.AGENT_JAR.toFile())) {
            try (InputStream in = jar.getInputStream(jar.getEntry("sluice/sluice-bootstrap.jar"))) {
                Files.copy(in, bridge, StandardCopyOption.REPLACE_EXISTING);
            }
            List<String> modules = new ArrayList<>();
            for (JarEntry entry : Collections.list(jar.entries())) {
                String name = entry.getName();
                if (name.matches("dev/sluice/instrumentation/[^/]+/[^/$]+Instrumentation\\.class")
                        && !name.startsWith("dev/sluice/instrumentation/api/")) {
                    modules.add(name.substring(0, name.length() - 6).replace('/', '.'));
                }
            }
            try (URLClassLoader loader = new URLClassLoader(
                    new URL[] {
                        ForkedApp.AGENT_JAR.toUri().toURL(), bridge.toUri().toURL()
                    },
                    ClassLoader.getPlatformClassLoader())) {
                for (String module : modules) {
                    Class<?> type = Class.forName(module, false, loader);
                    if (!Modifier.isAbstract(type.getModifiers())) {
                        Object instance = type.getConstructor().newInstance();
                        @SuppressWarnings("unchecked")
                        List<String> names =
                                (List<String>) type.getMethod("hookedTypeNames").invoke(instance);
                        hooked.addAll(names);
                    }
                }
            }
        } finally {
            Files.deleteIfExists(bridge);
        }
        assertThat(hooked).as("hooked classes in the agent jar").hasSizeGreaterThanOrEqualTo(20);
        return hooked;
    }
}
