package dev.sluice.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The built agent jar: its layout, its safety rules, and what it does (and does not do) to a host JVM. */
class AgentJarIT {

    private static RecordingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = new RecordingServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void manifestMakesItAnAgentAndATool() throws Exception {
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertThat(main.getValue("Premain-Class")).isEqualTo("dev.sluice.agent.SluiceAgent");
            assertThat(main.getValue("Agent-Class")).isEqualTo("dev.sluice.agent.SluiceAgent");
            assertThat(main.getValue("Can-Retransform-Classes")).isEqualTo("true");
            assertThat(main.getValue("Main-Class")).isEqualTo("dev.sluice.agent.SluiceCli");
        }
        // stored, not deflated (faster class loading at start-up), ByteBuddy included; the bound catches bloat
        assertThat(Files.size(ForkedJvm.AGENT_JAR)).as("jar size").isLessThan(24_000_000L);
        try (java.util.jar.JarInputStream in =
                new java.util.jar.JarInputStream(Files.newInputStream(ForkedJvm.AGENT_JAR))) {
            assertThat(in.getManifest())
                    .as("manifest first, as streaming readers expect")
                    .isNotNull();
        }
    }

    @Test
    void classesAreStoredSoTheJvmLoadsThemWithoutInflating() throws Exception {
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            assertThat(jar.stream().filter(e -> e.getName().endsWith(".class")))
                    .isNotEmpty()
                    .allSatisfy(
                            e -> assertThat(e.getMethod()).as(e.getName()).isEqualTo(java.util.zip.ZipEntry.STORED));
        }
    }

    @Test
    void onlyRelocatedThirdPartyCodeAndNoLoadableBridgeOrHelpers() throws Exception {
        List<String> names = new ArrayList<>();
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            jar.stream()
                    .map(JarEntry::getName)
                    .filter(n -> n.endsWith(".class"))
                    .forEach(names::add);
            assertThat(jar.getEntry("sluice/sluice-bootstrap.jar"))
                    .as("nested bridge jar")
                    .isNotNull();
        }
        assertThat(names)
                .allSatisfy(n -> assertThat(n.startsWith("dev/sluice/") || n.startsWith("sluice-helpers/"))
                        .as(n)
                        .isTrue());
        assertThat(names).noneMatch(n -> n.startsWith("dev/sluice/bootstrap/"));
        assertThat(names).noneMatch(n -> n.matches("dev/sluice/instrumentation/[^/]+/helper/.*"));
        assertThat(names)
                .anyMatch(n -> n.startsWith("sluice-helpers/okhttp/dev/sluice/instrumentation/okhttp/helper/"));
        assertThat(names)
                .anyMatch(
                        n -> n.startsWith("sluice-helpers/jdk-http-client/dev/sluice/instrumentation/jdkhttp/helper/"));
        assertThat(names)
                .as("ByteBuddy, relocated")
                .anyMatch(n -> n.startsWith("dev/sluice/shaded/bytebuddy/asm/Advice"));
        assertThat(names).noneMatch(n -> n.startsWith("net/bytebuddy/") || n.startsWith("org/objectweb/asm/"));
    }

    /**
     * Every advice class of the jar is one ByteBuddy applies as the agent does: annotated with the
     * relocated {@code Advice} (the shade plugin rewrote the instrumentations' references along with
     * ByteBuddy itself), and every advice method suppresses every {@code Throwable}, so an advice
     * that fails never reaches the host's call.
     */
    @Test
    void everyAdviceClassCarriesTheRelocatedAnnotationsAndSuppressesThrowable() throws Exception {
        Path bridge = Files.createTempFile("bridge", ".jar");
        List<String> adviceMethods = new ArrayList<>();
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            try (InputStream in = jar.getInputStream(jar.getEntry("sluice/sluice-bootstrap.jar"))) {
                Files.copy(in, bridge, StandardCopyOption.REPLACE_EXISTING);
            }
            List<String> classes = new ArrayList<>();
            jar.stream()
                    .map(JarEntry::getName)
                    .filter(n -> n.startsWith("dev/sluice/instrumentation/") && n.endsWith("Advice.class"))
                    .forEach(n -> classes.add(n.substring(0, n.length() - 6).replace('/', '.')));
            try (URLClassLoader loader = new URLClassLoader(
                    new URL[] {
                        ForkedJvm.AGENT_JAR.toUri().toURL(), bridge.toUri().toURL()
                    },
                    ClassLoader.getPlatformClassLoader())) {
                for (String name : classes) {
                    for (Method method : Class.forName(name, false, loader).getDeclaredMethods()) {
                        for (Annotation annotation : method.getAnnotations()) {
                            String type = annotation.annotationType().getName();
                            assertThat(type)
                                    .as("%s#%s", name, method.getName())
                                    .startsWith("dev.sluice.shaded.bytebuddy.");
                            if (type.endsWith(".asm.Advice$OnMethodEnter")
                                    || type.endsWith(".asm.Advice$OnMethodExit")) {
                                Object suppress = annotation
                                        .annotationType()
                                        .getMethod("suppress")
                                        .invoke(annotation);
                                assertThat(suppress)
                                        .as("%s#%s suppress", name, method.getName())
                                        .isEqualTo(Throwable.class);
                                adviceMethods.add(name + "#" + method.getName());
                            }
                        }
                    }
                }
            }
        } finally {
            Files.deleteIfExists(bridge);
        }
        assertThat(adviceMethods).as("advice methods found").hasSizeGreaterThanOrEqualTo(30);
    }

    /**
     * No class of the jar concatenates strings through {@code invokedynamic}: the agent's modules
     * are compiled with {@code -XDstringConcat=inline}, the shaded libraries rewritten at build
     * time ({@code InlinedConcat}), so the agent never makes the host bootstrap {@code
     * StringConcatFactory} (10 to 20 ms of CPU on its first use).
     */
    @Test
    void noClassConcatenatesStringsThroughInvokedynamic() throws Exception {
        List<String> concatenating = new ArrayList<>();
        ClassFiles.eachOfTheAgentJar((name, entry, classFile) -> {
            if (ClassFiles.invokedynamicSites(classFile, "java/lang/invoke/StringConcatFactory") > 0) {
                concatenating.add(entry);
            }
        });
        assertThat(concatenating).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void cliPrintsItsVersion(ForkedJvm.Jdk jdk) throws Exception {
        ForkedJvm.Result r =
                ForkedJvm.run(Arrays.asList(jdk.java(), "-jar", ForkedJvm.AGENT_JAR.toString(), "version"));
        r.assertOk();
        assertThat(r.stdout.trim()).matches("sluice \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    }

    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void applicationSeesNoneOfTheAgentsLibraries(ForkedJvm.Jdk jdk) throws Exception {
        ForkedJvm.Result r = ForkedJvm.run(
                        jdk, true, ForkedJvm.classPath(ForkedJvm.TEST_CLASSES), "dev.sluice.testapp.IsolationApp")
                .assertOk();
        for (String name : new String[] {
            "com.fasterxml.jackson.databind.ObjectMapper",
            "com.fasterxml.jackson.core.JsonFactory",
            "org.slf4j.LoggerFactory",
            "org.objectweb.asm.ClassReader",
            "net.bytebuddy.asm.Advice",
            "com.github.benmanes.caffeine.cache.Caffeine",
            "org.yaml.snakeyaml.Yaml",
            "dev.sluice.instrumentation.okhttp.helper.OkHttpHook",
            "dev.sluice.instrumentation.jdkhttp.helper.JdkHttpHook"
        }) {
            assertThat(r.get("class." + name)).as(name).isEqualTo("absent");
        }
        assertThat(r.get("class.dev.sluice.bootstrap.Bridge")).isEqualTo("bootstrap");
        assertThat(r.get("governance.loader"))
                .as("the agent's classes come from its own loader, not the application's class path")
                .isEqualTo("sluice");
        assertThat(r.startLines()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void applicationKeepsItsOwnJacksonAndSlf4j(ForkedJvm.Jdk jdk) throws Exception {
        Path[] classPath = ForkedJvm.concat(ForkedJvm.jars("app-own"), ForkedJvm.TEST_CLASSES);
        ForkedJvm.Result r = ForkedJvm.run(
                        jdk, true, ForkedJvm.classPath(classPath), "dev.sluice.testapp.IsolationApp", "use-own")
                .assertOk();
        assertThat(r.get("class.com.fasterxml.jackson.databind.ObjectMapper"))
                .contains("libs/app-own/jackson-databind");
        assertThat(r.get("class.org.slf4j.LoggerFactory")).contains("libs/app-own/slf4j-api");
        assertThat(r.get("jackson.json")).isEqualTo("{\"a\":1}");
        assertThat(r.get("slf4j.factory")).isEqualTo("org.slf4j.simple.SimpleLoggerFactory");
        assertThat(r.stderr)
                .contains("app's own logger works")
                .doesNotContain("SLF4J(W)")
                .doesNotContain("SLF4J: ");
    }

    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void startsNoThreadOfItsOwn(ForkedJvm.Jdk jdk) throws Exception {
        String cp = ForkedJvm.classPath(ForkedJvm.TEST_CLASSES);
        ForkedJvm.Result with =
                ForkedJvm.run(jdk, true, cp, "dev.sluice.testapp.ThreadsApp").assertOk();
        ForkedJvm.Result without =
                ForkedJvm.run(jdk, false, cp, "dev.sluice.testapp.ThreadsApp").assertOk();
        assertThat(with.get("warmUpEnded")).isEqualTo("true");
        assertThat(with.get("threads")).isEqualTo(without.get("threads"));
        assertThat(without.startLines()).isZero();
    }

    /**
     * A state file older than an hour makes the core log a line at {@code info} while the governor
     * is built, before the agent's own logger exists, so the core's logger is the one that starts
     * SLF4J: it must start at the configured {@code logLevel} all the same (it started at
     * slf4j-simple's own default, {@code info}, whatever the level said).
     */
    @Test
    void theCoreLogsAtTheConfiguredLevelEvenWhenItStartsLoggingFirst(@TempDir Path dir) throws Exception {
        Path stale = dir.resolve("service.state.json");
        String oldState = "{\"version\":1,\"savedAt\":1000,\"scopes\":[],\"buckets\":[],\"organizations\":{}}";
        List<String> command = new ArrayList<>(Arrays.asList(
                ForkedJvm.Jdk.JDK17.java(),
                "-Dsluice.stateFile=" + stale,
                "-Dsluice.logLevel=warn",
                "-javaagent:" + ForkedJvm.AGENT_JAR,
                "-cp",
                ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                "dev.sluice.testapp.ThreadsApp"));
        Files.writeString(stale, oldState);
        ForkedJvm.Result atWarn = ForkedJvm.run(command).assertOk();
        assertThat(atWarn.get("warmUpEnded")).isEqualTo("true");
        assertThat(atWarn.stderr).doesNotContain("INFO").doesNotContain("old; starting with nothing learned");
        assertThat(atWarn.startLines()).isEqualTo(1);

        Files.writeString(stale, oldState);
        command.set(2, "-Dsluice.logLevel=info");
        ForkedJvm.Result atInfo = ForkedJvm.run(command).assertOk();
        assertThat(atInfo.stderr).as("at info, the line is there").contains("old; starting with nothing learned");
    }

    /**
     * The weaver is readied on {@code sluice-warmup} from {@code premain}, whether or not the
     * application weaves a hook meanwhile; a hook woven at once is woven all the same.
     */
    @Test
    void warmsTheWeaverUpOnItsOwnThreadFromPremain() throws Exception {
        List<String> command = Arrays.asList(
                ForkedJvm.Jdk.JDK17.java(),
                "-javaagent:" + ForkedJvm.AGENT_JAR + "=log=debug",
                "-cp",
                ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                "dev.sluice.testapp.ThreadsApp");
        ForkedJvm.Result idle = ForkedJvm.run(command).assertOk();
        assertThat(idle.get("warmUpEnded")).isEqualTo("true");
        assertThat(idle.stderr)
                .contains("weaver warmed up in")
                .doesNotContain("could not read the advice")
                .doesNotContain("could not instrument");

        List<String> callingAtOnce = new ArrayList<>(command);
        callingAtOnce.add("http-client");
        ForkedJvm.Result woven = ForkedJvm.run(callingAtOnce).assertOk();
        assertThat(woven.get("warmUpEnded")).isEqualTo("true");
        assertThat(woven.stderr)
                .contains("instrumented jdk/internal/net/http/HttpClientFacade")
                .contains("weaver warmed up in")
                .doesNotContain("could not instrument");
    }

    @Test
    void aFailedStartLeavesTheJvmRunningUngoverned(@TempDir Path dir) throws Exception {
        // a repacked agent jar that lost the nested bridge jar: the start cannot succeed
        Path broken = dir.resolve("sluice-agent-without-bridge.jar");
        try (ZipFile in = new ZipFile(ForkedJvm.AGENT_JAR.toFile());
                ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(broken))) {
            for (ZipEntry e : Collections.list(in.entries())) {
                if (!e.getName().equals("sluice/sluice-bootstrap.jar")) {
                    out.putNextEntry(new ZipEntry(e.getName()));
                    try (InputStream body = in.getInputStream(e)) {
                        body.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
        ForkedJvm.Result r = ForkedJvm.run(Arrays.asList(
                        ForkedJvm.Jdk.JDK17.java(),
                        "-javaagent:" + broken,
                        "-cp",
                        ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                        "dev.sluice.testapp.BrokenStartApp"))
                .assertOk();
        assertThat(r.get("app.ran")).isEqualTo("true");
        assertThat(r.get("app.bridge")).isEqualTo("absent");
        assertThat(r.stderr.lines().filter(l -> l.startsWith("[sluice] ")))
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).startsWith("[sluice] failed to start, the JVM runs ungoverned"));
    }

    /**
     * The bridge is defined in the bootstrap loader, not appended to its path: the JVM prints no
     * "Sharing is only supported for boot loader classes" warning, and a JVM without a writable
     * temporary directory starts governed.
     */
    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void theBridgeNeedsNoFileAndTheJvmPrintsNoSharingWarning(ForkedJvm.Jdk jdk) throws Exception {
        ForkedJvm.Result r = ForkedJvm.run(Arrays.asList(
                        jdk.java(),
                        "-Djava.io.tmpdir=/nonexistent/sluice-test",
                        "-javaagent:" + ForkedJvm.AGENT_JAR,
                        "-cp",
                        ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                        "dev.sluice.testapp.BrokenStartApp"))
                .assertOk();
        assertThat(r.get("app.bridge")).isEqualTo("present");
        assertThat(r.stdout + r.stderr)
                .doesNotContain("Sharing is only supported")
                .doesNotContain("failed to start");
    }

    /** Late attach retransforms classes that were loaded, and clients that were built, before it. */
    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void lateAttachGovernsClientsBuiltBeforeIt(ForkedJvm.Jdk jdk) throws Exception {
        server.reset();
        Path[] classPath = ForkedJvm.concat(ForkedJvm.jars("okhttp-4"), ForkedJvm.TEST_CLASSES);
        ForkedJvm.Result r = ForkedJvm.run(Arrays.asList(
                        jdk.java(),
                        "-Djdk.attach.allowAttachSelf=true",
                        "-cp",
                        ForkedJvm.classPath(classPath),
                        "dev.sluice.testapp.LateAttachApp",
                        String.valueOf(server.port()),
                        ForkedJvm.AGENT_JAR.toString()))
                .assertOk();
        assertThat(r.get("okhttp-before.status")).isEqualTo("200");
        assertThat(r.get("okhttp-after.status")).isEqualTo("200");
        assertThat(r.get("okhttp-after.header")).isEqualTo("admitted");
        assertThat(r.get("jdk-after.status")).isEqualTo("200");
        assertThat(r.get("jdk-after.header")).isEqualTo("admitted");
        assertThat(r.get("governed")).isEqualTo("2");
        assertThat(r.startLines()).isEqualTo(1);
        assertThat(server.received("okhttp-after").get(0).headers).doesNotContainKey("x-sluice-tenant");
        assertThat(Collections.singleton(server.received("jdk-after").get(0).headers))
                .allSatisfy(h -> assertThat(h).doesNotContainKey("x-sluice-tenant"));
    }
}
