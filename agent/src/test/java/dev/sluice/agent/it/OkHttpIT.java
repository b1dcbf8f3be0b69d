package dev.sluice.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * OkHttp 3.14, 4.12 and 5.x governed in a forked JVM, on JDK 17 and 25, with the library on the
 * system class path and inside a child class loader. The helpers are compiled once, against 3.14.9.
 */
class OkHttpIT {

    private static RecordingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = new RecordingServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    static Stream<Arguments> matrix() {
        Stream.Builder<Arguments> all = Stream.builder();
        for (String okhttp : new String[] {"okhttp-3", "okhttp-4", "okhttp-5"}) {
            for (ForkedJvm.Jdk jdk : ForkedJvm.Jdk.values()) {
                all.add(Arguments.of(okhttp, jdk));
            }
        }
        return all.build();
    }

    @ParameterizedTest(name = "{0} on {1}, system class path")
    @MethodSource("matrix")
    void governsFromTheSystemClassPath(String okhttp, ForkedJvm.Jdk jdk) throws Exception {
        server.reset();
        Path[] classPath = ForkedJvm.concat(ForkedJvm.jars(okhttp), ForkedJvm.TEST_CLASSES);
        ForkedJvm.Result r = ForkedJvm.run(
                jdk,
                true,
                ForkedJvm.classPath(classPath),
                "dev.sluice.testapp.OkHttpApp",
                String.valueOf(server.port()));
        assertOkHttpScenarios(r, okhttp);
        assertThat(r.get("env.okhttpLoader")).isEqualTo("app");
    }

    @ParameterizedTest(name = "{0} on {1}, child class loader")
    @MethodSource("matrix")
    void governsFromAChildClassLoader(String okhttp, ForkedJvm.Jdk jdk) throws Exception {
        server.reset();
        Path[] childPath = ForkedJvm.concat(ForkedJvm.jars(okhttp), ForkedJvm.TEST_CLASSES);
        ForkedJvm.Result r = ForkedJvm.run(
                jdk,
                true,
                ForkedJvm.classPath(ForkedJvm.TEST_CLASSES),
                "dev.sluice.testapp.ChildLoaderLauncher",
                ForkedJvm.classPath(childPath),
                "dev.sluice.testapp.OkHttpApp",
                String.valueOf(server.port()));
        assertOkHttpScenarios(r, okhttp);
        assertThat(r.get("env.okhttpLoader")).isEqualTo("test-app");
    }

    private static void assertOkHttpScenarios(ForkedJvm.Result r, String okhttp) {
        GovernedCalls.assertScenarios(r, server, "okhttp");
        assertThat(r.get("env.callClass"))
                .isEqualTo(okhttp.equals("okhttp-3") ? "okhttp3.RealCall" : "okhttp3.internal.connection.RealCall");
        // the governed body keeps the media type and length OkHttp read from the headers
        assertThat(r.get("chat-sync.contentType")).isEqualTo("application/json");
        assertThat(Long.parseLong(r.get("chat-sync.contentLength")))
                .isEqualTo(r.get("chat-sync.body").length());
        assertThat(r.get("limited-sync.message")).isEqualTo("Too Many Requests");
        assertThat(r.get("limited-sync.protocol")).isEqualTo("http/1.1");
        assertThat(r.get("already-executed.second")).isEqualTo("IllegalStateException");
        assertThat(r.get("websocket.outcome")).isEqualTo("status 200"); // the loopback server does not upgrade
        assertThat(r.get("websocket.governed")).isEqualTo("false");
        // callbacks get the application's own Call, on the dispatcher's threads
        for (String scenario :
                new String[] {"chat-async", "retry-async", "limited-async", "stream-async", "cancel-async"}) {
            assertThat(r.get(scenario + ".sameCall")).as(scenario).isEqualTo("true");
            assertThat(r.get(scenario + ".callbackThread")).as(scenario).startsWith("OkHttp");
        }
        // cancel reaches the in-flight attempt and stops retries (the server would answer after 3 s)
        assertThat(r.get("cancel-sync.thrown")).isEqualTo("IOException");
        assertThat(Long.parseLong(r.get("cancel-sync.millis"))).isLessThan(2000);
        assertThat(r.get("cancel-sync.isCanceled")).isEqualTo("true");
        assertThat(r.get("cancel-sync.attempts")).isEqualTo("1");
        assertThat(r.get("cancel-async.failure"))
                .as("onFailure with an IOException")
                .isNotEmpty();
        assertThat(Long.parseLong(r.get("cancel-async.millis"))).isLessThan(2000);
        assertThat(r.get("cancel-async.attempts")).isEqualTo("1");
        assertThat(r.get("explode-after.observedClose"))
                .as("attempt response released")
                .isEqualTo("true");
        assertThat(server.received("cancel-sync")).hasSize(1);
        assertThat(server.received("cancel-async")).hasSize(1);
    }
}
