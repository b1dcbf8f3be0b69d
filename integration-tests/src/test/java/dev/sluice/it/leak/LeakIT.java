package dev.sluice.it.leak;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.it.providers.LoopbackHosts;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Nothing an application does with a governed call leaves the governor holding anything: after
 * calls that succeed, meet a provider error, are cancelled, lose their connection before the
 * answer, get a truncated body, time out waiting for a stalled head, or whose 2xx body is dropped
 * unread, the governor shows 0 in flight, 0 reserved, 0 waiting. The lease stays at its default
 * (10 minutes), far beyond the run, so the lease reaper cannot be what cleaned up (and the test
 * checks that it expired nothing).
 */
class LeakIT {

    /** How long the application waits for the governor to be quiet, collecting garbage meanwhile. */
    private static final int QUIET_SECONDS = 15;

    /** A body dropped unread by a JDK HttpClient caller ({@code ofInputStream}, send and sendAsync) is released. */
    @Test
    void droppedJdkInputStreamsAreReleased() throws Exception {
        Run run = Run.of(7, 30, 3, "jdk-sync,jdk-async", "drop", true);
        run.assertPlayedAsPlanned();
        run.assertQuiet();
    }

    /** A body dropped unread by an OkHttp caller (execute and enqueue) or an openai-java stream is released. */
    @Test
    void droppedOkHttpBodiesAreReleased() throws Exception {
        Run run = Run.of(11, 30, 3, "okhttp,okhttp-async,openai-stream", "drop", true);
        run.assertPlayedAsPlanned();
        run.assertQuiet();
    }

    /**
     * One call at a time, each ending in an exception (connection reset, stalled head, cancel):
     * each releases. Without a concurrency limit the path is token buckets only, which the
     * governor admits through its lock-free lane.
     */
    @Test
    void callsThatEndInAnExceptionRelease() throws Exception {
        Run run = Run.of(13, 24, 1, "all", "reset,stall,cancel", false);
        run.assertPlayedAsPlanned();
        run.assertQuiet();
    }

    /**
     * One call at a time through every client, each ending in a connection reset before any answer
     * or an error status (read, or never read nor closed): each gives back its slot and reservation
     * at once, with no garbage collected meanwhile; only a 2xx body dropped unread waits for one.
     */
    @Test
    void exceptionsAndErrorStatusesReleaseAtOnceWithoutAGarbageCollection() throws Exception {
        Run run = Run.of(17, 36, 1, "all", "reset,error,error-unread", true, false);
        run.assertPlayedAsPlanned();
        run.assertQuiet();
    }

    /**
     * No slot held after an error where an application runs nothing but the agent: no config at
     * all (the provider recognised by its URL, its limits learned from answers' headers, the
     * default retry loop), JDK 25, the JDK client at its default version (it offers an h2c upgrade
     * on {@code http://}; this provider declines it), against an OpenAI-style provider written
     * apart from the simulator whose connections fail for real ({@link RawProvider}). One call at
     * a time, {@code send} and {@code sendAsync} with {@code ofInputStream}, each ending in a reset
     * (before the request is read, after its head, in its body, after it), a close without an
     * answer, or a 500 read or never read nor closed, in a scope no answer has taught yet (its
     * slow start) and in one an answer taught: after each call, with no garbage collected, the
     * governor holds nothing.
     */
    @Test
    void withNoConfigJdkClientExceptionsAndErrorStatusesReleaseAtOnce() throws Exception {
        List<String> endings = List.of(
                "reset-at-accept",
                "reset-after-head",
                "reset-in-body",
                "reset-after-body",
                "close-after-body",
                "error-500",
                "error-500-unread");
        List<String> plan = new ArrayList<>();
        for (String client : List.of("jdk-async", "jdk-sync")) {
            for (String phase : List.of("cold", "taught")) {
                for (String ending : endings) {
                    plan.add(phase + ":" + client + ":" + ending);
                }
            }
        }
        ZeroConfigRun run = ZeroConfigRun.of(plan, false);
        run.assertEveryStepGovernedAsPlannedAndQuiet();
        assertThat(run.counter("attempts:h2cOffers"))
                .as("attempts that offered an h2c upgrade (the JDK client at its default version); %s", run.describe())
                .isPositive();
    }

    /**
     * The same setting over HTTP/2 and through the other clients: the provider takes the JDK
     * client's h2c upgrade, so a call after a success goes as a stream of that connection, which
     * the provider then resets (RST_STREAM) or drops (a TCP reset, a close), or answers 500 (its
     * retries open new connections, each offering the upgrade again); OkHttp and openai-java
     * (HTTP/1.1) meet resets, a close and 500s, cold and taught.
     */
    @Test
    void withNoConfigOverHttp2AndThroughOtherClientsExceptionsAndErrorStatusesReleaseAtOnce() throws Exception {
        List<String> plan = new ArrayList<>();
        // each fault but the stream's reset takes the connection down: a success opens the next one
        for (String ending : List.of(
                "reset-stream",
                "ok",
                "reset-after-head",
                "ok",
                "reset-in-body",
                "ok",
                "close-after-body",
                "ok",
                "error-500-unread")) {
            plan.add("taught:jdk-async:" + ending);
        }
        for (String ending : List.of("reset-stream", "ok", "reset-after-head", "ok", "error-500-unread")) {
            plan.add("taught:jdk-sync:" + ending);
        }
        for (String client : List.of("jdk-async", "jdk-sync")) {
            plan.add("cold:" + client + ":reset-stream");
            plan.add("cold:" + client + ":error-500-unread");
        }
        for (String client : List.of("okhttp", "openai")) {
            String error = client.equals("openai") ? "error-500" : "error-500-unread"; // the SDK reads every error body
            for (String ending : List.of("reset-at-accept", "reset-after-head", error)) {
                plan.add("cold:" + client + ":" + ending);
            }
            for (String ending : List.of("reset-after-head", "close-after-body", error)) {
                plan.add("taught:" + client + ":" + ending);
            }
        }
        ZeroConfigRun run = ZeroConfigRun.of(plan, true);
        run.assertEveryStepGovernedAsPlannedAndQuiet();
        assertThat(run.counter("attempts:http2"))
                .as("attempts that went as HTTP/2 streams; %s", run.describe())
                .isGreaterThanOrEqualTo(10);
    }

    /**
     * The leak test: a random mix of every client and every ending, several callers at once. The
     * seed is printed; {@code -Dsluice.leak.seed=<seed>} replays a run.
     */
    @Test
    void aRandomMixOfEveryEndingLeavesNothingHeld() throws Exception {
        long seed = Long.getLong("sluice.leak.seed", System.nanoTime());
        System.out.println("LeakIT random mix seed: " + seed + " (replay with -Dsluice.leak.seed=" + seed + ")");
        Run run = Run.of(seed, 70, 4, "all", "all", true);
        run.assertPlayedAsPlanned();
        run.assertQuiet();
    }

    /** One run of {@link ZeroConfigLeakApp}: the agent with no config, on JDK 25, against {@link RawProvider}. */
    private static final class ZeroConfigRun {
        final List<String> plan;
        final JsonNode summary;
        final String stderr;

        private ZeroConfigRun(List<String> plan, JsonNode summary, String stderr) {
            this.plan = plan;
            this.summary = summary;
            this.stderr = stderr;
        }

        /** {@code h2c}: the provider takes the JDK client's offer to upgrade to HTTP/2. */
        static ZeroConfigRun of(List<String> plan, boolean h2c) throws Exception {
            ForkedApp.Result r = ForkedApp.of(ZeroConfigLeakApp.class)
                    .withAgent((String) null)
                    .jdk(ForkedApp.Jdk.JDK25)
                    // a young generation the run never fills: no collection can release what a step held
                    .jvmOption("-Xmn320m")
                    .jvmOption("-XX:MetaspaceSize=256m")
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file("api.openai.com"))
                    .timeout(Duration.ofMinutes(3))
                    .args(String.join(",", plan), h2c)
                    .run()
                    .assertOk();
            ZeroConfigRun run = new ZeroConfigRun(plan, r.summary(), r.stderr);
            System.out.println(
                    "LeakIT with no config (h2c " + h2c + "): " + run.summary.get("counters") + "\n" + run.steps());
            return run;
        }

        long counter(String name) {
            JsonNode n = summary.get("counters").get(name);
            return n == null ? 0 : n.asLong();
        }

        /**
         * Every step (the plan's, and each taught client's first success) was governed, ended as
         * planned, and left nothing in flight, waiting or reserved when read after it.
         */
        void assertEveryStepGovernedAsPlannedAndQuiet() {
            long taughtClients = plan.stream()
                    .filter(s -> s.startsWith("taught:"))
                    .map(s -> s.split(":")[1])
                    .distinct()
                    .count();
            long steps = plan.size() + taughtClients;
            assertThat(counter("steps")).as("steps played; %s", describe()).isEqualTo(steps);
            assertThat(counter("steps:governed"))
                    .as("steps governed; %s", describe())
                    .isEqualTo(steps);
            assertThat(counter("steps:as-planned"))
                    .as("steps ended as planned; %s", describe())
                    .isEqualTo(steps);
            assertThat(counter("held:inFlight"))
                    .as("calls in flight after a step; %s", describe())
                    .isZero();
            assertThat(counter("held:waiting"))
                    .as("calls waiting after a step; %s", describe())
                    .isZero();
            assertThat(counter("held:reserved"))
                    .as("reserved after a step; %s", describe())
                    .isZero();
            assertThat(counter("steps:quiet"))
                    .as("steps read quiet; %s", describe())
                    .isEqualTo(steps);
        }

        String steps() {
            StringBuilder out = new StringBuilder();
            summary.get("notes").fields().forEachRemaining(e -> {
                if (e.getKey().startsWith("step ")) {
                    out.append("  ")
                            .append(e.getKey())
                            .append(": ")
                            .append(e.getValue().asText())
                            .append('\n');
                }
            });
            return out.toString();
        }

        String describe() {
            return "counters " + summary.get("counters") + "\n" + steps() + "stderr:\n" + Run.tail(stderr);
        }
    }

    /** One run of {@link LeakMixApp} with the agent against a fresh simulator. */
    private static final class Run {
        final long seed;
        final JsonNode summary;
        final String stdout;
        final String stderr;

        private Run(long seed, JsonNode summary, String stdout, String stderr) {
            this.seed = seed;
            this.summary = summary;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        /** {@code slots}: the provider has a concurrency limit too (its slots are then held by bodies). */
        static Run of(long seed, int calls, int threads, String clients, String endings, boolean slots)
                throws Exception {
            return of(seed, calls, threads, clients, endings, slots, true);
        }

        /** {@code collectGarbage}: between the readings of the governor once every call ended. */
        static Run of(
                long seed,
                int calls,
                int threads,
                String clients,
                String endings,
                boolean slots,
                boolean collectGarbage)
                throws Exception {
            try (Simulator sim = Simulator.builder()
                    .profile(Profile.OPENAI)
                    .instant()
                    .requestsPerMinute(1_000_000)
                    .tokensPerMinute(100_000_000)
                    .start()) {
                // longer than the client's timeout and than any cancel delay, so both happen before the head
                sim.faults().slowFirstByteDelay(Duration.ofMillis(1500));
                String config = String.join(
                        "\n",
                        "mode: enforce",
                        "retry:",
                        "  maxAttempts: 2",
                        "providers:",
                        "  - name: sim",
                        "    kind: openai",
                        "    learnFromHeaders: false",
                        "    match:",
                        "      urls: [\"" + sim.baseUrl() + "/v1/\"]",
                        "    limits:",
                        "      - {id: sim-rpm, dimension: requests, capacity: 100000, window: 1m}",
                        "      - {id: sim-input, dimension: input_tokens, capacity: 10000000, window: 1m}",
                        "      - {id: sim-output, dimension: output_tokens, capacity: 10000000, window: 1m}",
                        slots ? "      - {id: sim-slots, dimension: concurrency, capacity: 1000}" : "",
                        "");
                ForkedApp.Result r = ForkedApp.of(LeakMixApp.class)
                        .withAgent(SluiceYaml.agentOptions(config))
                        .timeout(Duration.ofMinutes(2))
                        .args(
                                sim.baseUrl(),
                                seed,
                                calls,
                                threads,
                                clients,
                                endings,
                                QUIET_SECONDS,
                                collectGarbage ? "gc" : "nogc")
                        .run()
                        .assertOk();
                Run run = new Run(seed, r.summary(), r.stdout, r.stderr);
                System.out.println("LeakIT seed " + seed + " " + clients + " / " + endings + ": " + run.counters());
                return run;
            }
        }

        long counter(String name) {
            JsonNode n = summary.get("counters").get(name);
            return n == null ? 0 : n.asLong();
        }

        Map<String, Long> counters() {
            Map<String, Long> out = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it =
                            summary.get("counters").fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                out.put(e.getKey(), e.getValue().asLong());
            }
            return out;
        }

        /**
         * Every call ended, and most of each kind ended the way it was planned (a run where, say,
         * nothing was actually dropped would prove nothing); every call went through the governor.
         */
        void assertPlayedAsPlanned() {
            assertThat(counter("unfinished")).as(describe()).isZero();
            long planned = 0;
            for (Map.Entry<String, Long> e : counters().entrySet()) {
                if (!e.getKey().endsWith(":planned")) {
                    continue;
                }
                String kind = e.getKey().substring(0, e.getKey().length() - ":planned".length());
                planned += e.getValue();
                assertThat(counter(kind + ":as-planned"))
                        .as("%s ended as planned; %s", kind, describe())
                        .isGreaterThanOrEqualTo((e.getValue() + 1) / 2);
            }
            assertThat(planned).as(describe()).isPositive();
            assertThat(counter("state:admitted"))
                    .as("calls admitted by the governor; %s", describe())
                    .isGreaterThanOrEqualTo(planned);
        }

        /** The governor holds nothing, and not because leases expired. */
        void assertQuiet() {
            assertThat(counter("state:inFlight"))
                    .as("calls in flight; %s", describe())
                    .isZero();
            assertThat(counter("state:reserved")).as("reserved; %s", describe()).isZero();
            assertThat(counter("state:waiting"))
                    .as("calls waiting; %s", describe())
                    .isZero();
            assertThat(counter("state:leaseExpired"))
                    .as("leases the reaper expired; %s", describe())
                    .isZero();
        }

        private String describe() {
            return "seed " + seed + ", " + summary.get("notes") + ", counters " + counters() + "\nstderr:\n"
                    + tail(stderr);
        }

        static String tail(String text) {
            return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
        }
    }
}
