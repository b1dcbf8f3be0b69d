package dev.sluice.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

/** Assertions shared by the JDK HttpClient and OkHttp runs: what a user of the library would notice. */
final class GovernedCalls {

    private GovernedCalls() {}

    static void assertScenarios(ForkedJvm.Result r, RecordingServer server, String library) {
        r.assertOk();
        assertThat(r.startLines()).as("start line printed once: %s", r.stderr).isEqualTo(1);
        assertThat(r.stderr)
                .contains("[sluice] ")
                .containsPattern(
                        "mode=enforce config=defaults \\(no config file\\) instrumentations=jdk-http-client,okhttp");
        assertThat(r.get("env.bridgeLoader"))
                .as("bridge defined by the bootstrap loader")
                .isEqualTo("null");

        // governed sync call: response from the server, decision header from the governance
        assertThat(r.get("chat-sync.status")).isEqualTo("200");
        assertThat(r.get("chat-sync.header")).isEqualTo("admitted");
        assertThat(r.get("chat-sync.body")).startsWith("{\"echo\":");
        assertThat(r.get("chat-sync.library")).isEqualTo(library);
        assertThat(r.get("chat-sync.tenantSeenByGovernance")).isEqualTo("search");
        assertThat(Integer.parseInt(r.get("chat-sync.requestBodySeen"))).isGreaterThan(20);
        assertThat(r.get("chat-sync.body")).contains("\"echo\":" + r.get("chat-sync.requestBodySeen"));
        assertThat(Long.parseLong(r.get("chat-sync.observedBytes")))
                .isEqualTo(r.get("chat-sync.body").length());
        assertThat(r.get("chat-sync.observedEnd")).isEqualTo("true");
        assertThat(Long.parseLong(r.get("chat-sync.timeoutNanos"))).isEqualTo(7_000_000_000L);
        assertThat(server.received("chat-sync")).hasSize(1);

        // 503 then 200: one retry, two requests on the wire
        assertThat(r.get("retry-sync.status")).isEqualTo("200");
        assertThat(r.get("retry-sync.header")).isEqualTo("2");
        assertThat(server.received("retry-sync")).hasSize(2);
        assertThat(server.received("retry-sync"))
                .allSatisfy(req -> assertThat(req.bodyLength).isGreaterThan(20));

        // local 429: never on the wire, shaped like the provider's answer
        assertThat(r.get("limited-sync.status")).isEqualTo("429");
        assertThat(r.get("limited-sync.header")).isEqualTo("2");
        assertThat(r.get("limited-sync.body")).contains("rejected_locally");
        assertThat(server.received("limited-sync")).isEmpty();

        // non-LLM URL: untouched, not seen by the governance
        assertThat(r.get("plain-sync.status")).isEqualTo("200");
        assertThat(r.get("plain-sync.header")).isEqualTo("null");
        assertThat(r.get("plain-sync.governed")).isEqualTo("false");
        assertThat(server.received("plain-sync")).hasSize(1);

        // streaming read to the end, and closed early
        assertThat(r.get("stream-sync.body")).isEqualTo("events=5");
        assertThat(r.get("stream-sync.observedEnd")).isEqualTo("true");
        assertThat(r.get("stream-sync.observedClose")).isEqualTo("true");
        assertThat(Long.parseLong(r.get("stream-sync.observedBytes"))).isEqualTo(5 * "data: {\"n\":1}\n\n".length());
        assertThat(r.get("stream-early.body")).isEqualTo("data: {\"n\":1}");
        assertThat(r.get("stream-early.observedClose")).isEqualTo("true");
        assertThat(r.get("stream-early.observedEnd")).isEqualTo("false");

        // async: the caller is not blocked while admission waits (500 ms in the scripted governance)
        assertThat(Long.parseLong(r.get("chat-async.callerBlockedMillis"))).isLessThan(250);
        assertThat(r.get("chat-async.status")).isEqualTo("200");
        assertThat(r.get("chat-async.completionThread")).isNotEqualTo("sluice-test-scheduler");
        assertThat(r.get("retry-async.status")).isEqualTo("200");
        assertThat(r.get("retry-async.header")).isEqualTo("2");
        assertThat(server.received("retry-async")).hasSize(2);
        assertThat(r.get("limited-async.status")).isEqualTo("429");
        assertThat(server.received("limited-async")).isEmpty();
        assertThat(r.get("stream-async.body")).isEqualTo("events=5");
        assertThat(r.get("stream-async.observedEnd")).isEqualTo("true");

        // the governance fails: the call passes through exactly once, and the fault is counted
        assertThat(r.get("explode-before.status")).isEqualTo("200");
        assertThat(r.get("explode-before.header")).isEqualTo("null");
        assertThat(r.get("explode-before.faults")).isEqualTo("1");
        assertThat(server.received("explode-before")).hasSize(1);
        assertThat(r.get("explode-before-async.status")).isEqualTo("200");
        assertThat(r.get("explode-before-async.faults")).isEqualTo("1");
        assertThat(server.received("explode-before-async")).hasSize(1);
        assertThat(r.get("throw-governs.status")).isEqualTo("200");
        assertThat(server.received("throw-governs")).hasSize(1);
        // ... and once a request was sent it is never sent again
        assertThat(r.get("explode-after.thrown")).isEqualTo("IOException");
        assertThat(server.received("explode-after")).hasSize(1);

        // X-Sluice-* headers never reach the server, even on the fault fallback; everything else does.
        // (Only when governs() itself fails is an exchange passed on untouched: Sluice cannot tell it is its own.)
        List<RecordingServer.Received> all = server.all();
        all.removeIf(req -> "throw-governs".equals(req.testId));
        assertThat(all).isNotEmpty();
        assertThat(all).allSatisfy(req -> assertThat(req.headers.keySet()).noneMatch(h -> h.startsWith("x-sluice-")));
        assertThat(server.received("chat-sync").get(0).headers).containsKey("x-test-id");
    }
}
