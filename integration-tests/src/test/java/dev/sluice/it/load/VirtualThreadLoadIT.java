package dev.sluice.it.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.providers.LoopbackHosts;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Load: {@value #THREADS} virtual threads on JDK 25, each making one chat completion at
 * the same moment through the agent with no config, against the simulator as OpenAI (one test: as
 * Anthropic), reached under its real host name, allowing {@value #REQUESTS_PER_MINUTE} requests
 * a minute, so a thousand calls must wait for admission. Skipped, visibly, when no JDK 25 is installed.
 *
 * <p>What must hold: no deadlock (every call ends before the app's deadline; otherwise the app
 * prints a thread-dump summary), the heap after a GC under {@value #HEAP_BOUND_MB} MB, nothing in
 * flight, waiting or reserved in the governor afterwards, and no flood: the provider sees at most
 * one attempt per call plus {@value #ATTEMPT_MARGIN_PERCENT} %, and at most
 * {@value #PROVIDER_429_PERCENT} % of its answers are 429s.
 */
@Isolated
class VirtualThreadLoadIT {

    static final int THREADS = 5_000;
    /**
     * The provider's limit, per minute as OpenAI's are (and as Sluice, with no config, reads its
     * headers): the first {@value} calls go at once, the rest wait for the bucket's refill (67 a
     * second), some 15 s for the last.
     */
    static final int REQUESTS_PER_MINUTE = 4_000;
    /** Half the app's 512 MB heap; measured 29 to 109 MB (the JDK client keeps thousands of pooled connections). */
    static final int HEAP_BOUND_MB = 256;

    static final int ATTEMPT_MARGIN_PERCENT = 2;
    static final int PROVIDER_429_PERCENT = 5;
    private static final String HOST = "api.openai.com";
    private static final String ANTHROPIC_HOST = "api.anthropic.com";
    private static final int APP_DEADLINE_SECONDS = 50;

    /** What one run did: the app's summary and the provider's ledger. */
    record Run(JsonNode summary, List<Exchange> exchanges, long wallMillis) {
        long attempts() {
            return exchanges.size();
        }

        long provider429s() {
            return exchanges.stream().filter(e -> e.status() == 429).count();
        }

        long outcome(String name) {
            JsonNode n = summary.get("outcomes").get(name);
            return n == null ? 0 : n.asLong();
        }

        /** Attempts and provider 429s per second since the first arrival: where a flood shows. */
        String timeline() {
            if (exchanges.isEmpty()) {
                return "-";
            }
            java.time.Instant first = exchanges.stream()
                    .map(Exchange::arrivedAt)
                    .min(java.util.Comparator.naturalOrder())
                    .orElseThrow();
            java.util.TreeMap<Long, long[]> perSecond = new java.util.TreeMap<>();
            for (Exchange e : exchanges) {
                long[] c = perSecond.computeIfAbsent(
                        Duration.between(first, e.arrivedAt()).toSeconds(), k -> new long[2]);
                c[0]++;
                if (e.status() == 429) {
                    c[1]++;
                }
            }
            StringBuilder out = new StringBuilder();
            perSecond.forEach((second, c) -> out.append(second)
                    .append("s:")
                    .append(c[0])
                    .append('/')
                    .append(c[1])
                    .append(' '));
            return out.toString().trim();
        }

        /** The app's samples of the governor, every 500 ms (waiting, in flight, each learned limit's room). */
        String governorTimeline() {
            JsonNode t = summary.get("timeline");
            if (t == null || !t.isArray()) {
                return "-";
            }
            StringBuilder out = new StringBuilder();
            t.forEach(line -> out.append(System.lineSeparator()).append("  ").append(line.asText()));
            return out.toString();
        }

        /** What a failure prints: the run, its attempts per second and the governor's timeline. */
        String diagnosis() {
            return this + System.lineSeparator() + "attempts/429s per second: " + timeline() + System.lineSeparator()
                    + "governor every 500 ms:" + governorTimeline();
        }

        @Override
        public String toString() {
            return String.format(
                    "wall %d ms (calls %d ms), provider attempts %d, provider 429s %d, app outcomes %s, "
                            + "heap after GC %d MB, governor %s/%s in flight/waiting, reserved %s, rejections %s",
                    wallMillis,
                    summary.get("elapsedMillis").asLong(),
                    attempts(),
                    provider429s(),
                    summary.get("outcomes"),
                    summary.get("heapUsedAfterGcMb").asLong(),
                    summary.get("inFlight"),
                    summary.get("waiting"),
                    summary.get("reserved"),
                    summary.get("rejectionsByReason"));
        }
    }

    static Run run(String client, int threads, String agentOptions) throws Exception {
        boolean anthropic = client.equals("anthropic");
        String host = anthropic ? ANTHROPIC_HOST : HOST;
        try (Simulator sim = Simulator.builder()
                .profile(anthropic ? Profile.ANTHROPIC : Profile.OPENAI)
                .instant()
                .limit(Dimension.REQUESTS, REQUESTS_PER_MINUTE, Duration.ofMinutes(1))
                .start()) {
            long started = System.nanoTime();
            ForkedApp.Result r = ForkedApp.of(VirtualThreadsApp.class)
                    .jdk(ForkedApp.Jdk.JDK25)
                    .withAgent(agentOptions)
                    .timeout(Duration.ofSeconds(APP_DEADLINE_SECONDS + 25))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(host))
                    .args(LoopbackHosts.url(host, sim.port(), ""), threads, APP_DEADLINE_SECONDS, client)
                    .run();
            long wall = (System.nanoTime() - started) / 1_000_000;
            assertThat(r.timedOut)
                    .as("the app ended on its own; stdout:%n%s%nstderr:%n%s", r.stdout, r.stderr)
                    .isFalse();
            Run run = new Run(r.summary(), sim.ledger().exchanges(), wall);
            System.out.printf(
                    "virtual threads, %s, %d threads, %d req/min: %s%n  attempts/429s per second: %s%n",
                    client, threads, REQUESTS_PER_MINUTE, run, run.timeline());
            return run;
        }
    }

    static void assertNoDeadlockNoLeakNoFlood(Run run, int threads) {
        assertThat(run.summary.get("finished").asBoolean())
                .as("every call ended (no deadlock): %s", run.diagnosis())
                .isTrue();
        assertThat(run.summary.get("heapUsedAfterGcMb").asLong())
                .as("heap after GC: %s", run.diagnosis())
                .isLessThan(HEAP_BOUND_MB);
        assertThat(run.summary.get("inFlight").asInt())
                .as("in flight afterwards: %s", run.diagnosis())
                .isZero();
        assertThat(run.summary.get("waiting").asInt())
                .as("waiting afterwards: %s", run.diagnosis())
                .isZero();
        assertThat(run.summary.get("reserved").asLong())
                .as("reserved afterwards: %s", run.diagnosis())
                .isZero();
        assertThat(run.summary.get("limitsInFlight").asLong())
                .as("limits' in flight afterwards: %s", run.diagnosis())
                .isZero();
        assertThat(run.attempts())
                .as("provider attempts (no flood): %s", run.diagnosis())
                .isLessThanOrEqualTo(threads + threads * ATTEMPT_MARGIN_PERCENT / 100);
        assertThat(run.provider429s())
                .as("provider 429s: %s", run.diagnosis())
                .isLessThanOrEqualTo(run.attempts() * PROVIDER_429_PERCENT / 100);
    }

    /** Every call waits its turn (default class, 60 s) and succeeds. */
    @Test
    void thousandsOfVirtualThreadsThroughTheJdkHttpClient() throws Exception {
        Run run = run("jdk", THREADS, null);
        assertNoDeadlockNoLeakNoFlood(run, THREADS);
        assertThat(run.outcome("200"))
                .as("calls that succeeded: %s", run.diagnosis())
                .isEqualTo(THREADS);
    }

    /**
     * Anthropic's Messages API through the JDK client, the same storm. Unlike OpenAI, Anthropic
     * does not say how long it worked on a call before answering, so Sluice reads each answer as of
     * the call's admission, bounded by what is still in flight (the 36 s stall seen against OpenAI
     * before 13da4f9 came from reading answers too early). Asserted: what the other runs assert,
     * every call succeeding before the deadline. Seen in 13 runs (2026-12-04), all passing: the
     * calls took 16.2 to 17.1 s in 9, and 18.6, 19.7, 21.2 and 28.3 s in 4. A CI run on 2026-12-05
     * then failed: ten 429s at the burst's end raised the estimate of others' share ten times over
     * (to 85 %, the scope refilling 10 calls a second), and the burst's figures, each taken off
     * the calls still in flight the provider had counted already, left the bucket 534 calls in
     * debt with nothing in flight; 766 calls missed the deadline. Since then refusals of calls
     * sent before the first raise the estimate once, and the last answer of a busy spell brings
     * the room to the least figure given during it (see {@code ProviderScope#followFigure}): six
     * runs after, calls in 15.7 to 16.4 s, 0 provider 429s (11 runs of a first version: 15.7 to
     * 17.7 s, 0 in 9, 25 and 84 in 2).
     */
    @Test
    void thousandsOfVirtualThreadsAgainstAnthropic() throws Exception {
        Run run = run("anthropic", THREADS, null);
        assertNoDeadlockNoLeakNoFlood(run, THREADS);
        assertThat(run.outcome("200"))
                .as("calls that succeeded: %s", run.diagnosis())
                .isEqualTo(THREADS);
    }

    /** The same through openai-java (OkHttp underneath, the SDK's retry loop stood aside). */
    @Test
    void thousandsOfVirtualThreadsThroughOpenAiJava() throws Exception {
        Run run = run("openai", THREADS, null);
        assertNoDeadlockNoLeakNoFlood(run, THREADS);
        assertThat(run.outcome("200"))
                .as("calls that succeeded: %s", run.diagnosis())
                .isEqualTo(THREADS);
    }

    /**
     * The default class may wait 2 s only: calls whose wait runs out while Sluice knows the scope
     * has no room must get a local 429 in OpenAI's shape, never go to the provider.
     */
    @Test
    void whenTheWaitRunsOutCallsGetALocal429InsteadOfFloodingTheProvider() throws Exception {
        Path config = Files.createTempFile("sluice-load-", ".yaml");
        config.toFile().deleteOnExit();
        Files.writeString(
                config,
                String.join("\n", "trafficClasses:", "  - name: default", "    maxWait: 2s", ""),
                StandardCharsets.UTF_8);
        Run run = run("jdk", THREADS, "config=" + config);
        assertNoDeadlockNoLeakNoFlood(run, THREADS);
        assertThat(run.outcome("200") + run.outcome("429 local"))
                .as("every call succeeded or was refused locally: %s", run)
                .isEqualTo(THREADS);
        assertThat(run.outcome("429 local"))
                .as("some waits ran out: %s", run.diagnosis())
                .isPositive();
    }
}
