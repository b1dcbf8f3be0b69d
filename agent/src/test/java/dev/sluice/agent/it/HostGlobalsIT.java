package dev.sluice.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.agent.LibraryLoggers;
import dev.sluice.testapp.HostGlobalsApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a JVM lets be configured once is the host's: an application that picks its {@code
 * java.util.logging} log manager in {@code main} (JBoss Modules, hence WildFly, does) or sizes the
 * common {@code ForkJoinPool} there gets what it asked for, even after the agent built its
 * governor and read a YAML config. The agent's shaded Caffeine used to initialise both on {@code
 * sluice-start}: the log manager through {@code System.getLogger}, the common pool as its default
 * executor.
 */
class HostGlobalsIT {

    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void anApplicationSetsUpItsLogManagerAndCommonPoolAfterTheAgentStarted(ForkedJvm.Jdk jdk) throws Exception {
        checkHostGlobals(jdk, "jmx:\n  enabled: true\nproviders:\n  - name: openai\n    kind: openai\n");
    }

    /** The same with a fleet store (unreachable here: it falls back), whose JMX view used to register itself at once. */
    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void aFleetStoreLeavesThemToTheApplicationToo(ForkedJvm.Jdk jdk) throws Exception {
        checkHostGlobals(jdk, "store: redis://127.0.0.1:1\n");
    }

    private static void checkHostGlobals(ForkedJvm.Jdk jdk, String yaml) throws Exception {
        Path config = Files.createTempFile("sluice-host-globals", ".yaml");
        Files.writeString(config, yaml);
        ForkedJvm.Result r = ForkedJvm.run(java.util.Arrays.asList(
                        jdk.java(),
                        "-Djava.io.tmpdir=" + Files.createTempDirectory("sluice-forked-"),
                        "-Dsluice.config=" + config,
                        "-javaagent:" + ForkedJvm.AGENT_JAR,
                        "-cp",
                        ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                        HostGlobalsApp.class.getName()))
                .assertOk();
        assertThat(r.get("agent")).startsWith("running");
        assertThat(r.get("logManager")).isEqualTo(HostGlobalsApp.OwnLogManager.class.getName());
        if (jdk == ForkedJvm.Jdk.JDK17) {
            // On JDK 25 initialising BigDecimal creates the common pool (BigInteger's parallel
            // multiply, from BigDecimal's own static initialiser), and Sluice's config and prices
            // use BigDecimal, as most applications' libraries do: a README limitation.
            assertThat(r.get("commonPoolParallelism")).isEqualTo(String.valueOf(HostGlobalsApp.PARALLELISM));
        }
    }

    /**
     * What in the jar could reach {@code java.util.logging}: no {@code System.getLogger} call is
     * left (the build rewrote Caffeine's, {@link LibraryLoggers}, and the rewritten classes call
     * the agent's logger instead), and snakeyaml's own logger is used only by its object
     * constructors (Jackson's YAML parser, which reads the config, never loads them). A library
     * upgrade that adds another user of {@code java.util.logging} fails here.
     */
    @Test
    void onlyKnownLibraryClassesCallTheJdksLoggers() throws Exception {
        Set<String> systemLoggers = new TreeSet<>();
        Set<String> julUsers = new TreeSet<>();
        Set<String> agentLoggerUsers = new TreeSet<>();
        ClassFiles.eachOfTheAgentJar((className, entry, classFile) -> {
            if (entry.startsWith("META-INF/")) {
                return;
            }
            ClassFiles.eachInstruction(classFile, new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitMethodInsn(int opcode, String owner, String method, String d, boolean itf) {
                    if (owner.equals("java/lang/System") && method.equals("getLogger")) {
                        systemLoggers.add(className);
                    }
                    if (owner.equals("dev/sluice/agent/AgentSystemLogger")
                            && !className.startsWith("dev/sluice/agent/")) {
                        agentLoggerUsers.add(className);
                    }
                    if (owner.startsWith("java/util/logging/")) {
                        julUsers.add(className);
                    }
                }
            });
        });
        assertThat(systemLoggers).as("System.getLogger callers left in the jar").isEmpty();
        assertThat(agentLoggerUsers)
                .as("the classes the build rewrote")
                .contains(
                        "dev/sluice/shaded/caffeine/cache/Caffeine",
                        "dev/sluice/shaded/caffeine/cache/BoundedLocalCache");
        // SnakeYAML's logger is created lazily and never enabled; the Prometheus exporter's two
        // classes load only when the metrics endpoint is on, and it starts only once a host that
        // installs its own log manager has done so (HostGlobals)
        assertThat(julUsers)
                .containsExactlyInAnyOrder(
                        "dev/sluice/shaded/snakeyaml/internal/Logger",
                        "dev/sluice/shaded/prometheus/metrics/exporter/httpserver/HttpErrorHandlingPolicy",
                        "dev/sluice/shaded/prometheus/metrics/exporter/httpserver/HttpExchangeAdapter");
    }
}
