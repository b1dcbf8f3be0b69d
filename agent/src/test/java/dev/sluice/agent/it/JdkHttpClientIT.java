package dev.sluice.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The JDK HttpClient governed in a forked JVM, on JDK 17 and 25, from the system and a child class loader. */
class JdkHttpClientIT {

    private static RecordingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = new RecordingServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void governsFromTheSystemClassPath(ForkedJvm.Jdk jdk) throws Exception {
        server.reset();
        ForkedJvm.Result r = ForkedJvm.run(
                jdk,
                true,
                ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                "dev.sluice.testapp.JdkHttpApp",
                String.valueOf(server.port()));
        assertJdkScenarios(r);
    }

    @ParameterizedTest
    @EnumSource(ForkedJvm.Jdk.class)
    void governsFromAChildClassLoader(ForkedJvm.Jdk jdk) throws Exception {
        server.reset();
        ForkedJvm.Result r = ForkedJvm.run(
                jdk,
                true,
                ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                "dev.sluice.testapp.ChildLoaderLauncher",
                ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                "dev.sluice.testapp.JdkHttpApp",
                String.valueOf(server.port()));
        assertJdkScenarios(r);
    }

    private static void assertJdkScenarios(ForkedJvm.Result r) {
        GovernedCalls.assertScenarios(r, server, "jdk-http-client");
        assertThat(r.get("env.clientClass")).isEqualTo("jdk.internal.net.http.HttpClientFacade");
        assertThat(r.get("cancel-async.cancelled")).isEqualTo("true");
        assertThat(r.get("cancel-async.attempts")).isEqualTo("1");
        // the tap is one of the JDK's trusted subscribers and request bodies are read where their
        // publisher keeps them: the agent opened (so exported) java.net.http's internal package
        // to Sluice's helpers, and to nothing else
        assertThat(r.get("chat-sync.internalsExportedToTap")).isEqualTo("true");
        assertThat(r.get("chat-sync.internalsExportedToApp")).isEqualTo("false");
        assertThat(r.get("chat-sync.internalsOpenToTap")).isEqualTo("true");
        assertThat(r.get("chat-sync.internalsOpenToApp")).isEqualTo("false");
    }
}
