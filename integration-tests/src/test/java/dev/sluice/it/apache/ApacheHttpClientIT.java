package dev.sluice.it.apache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.Figures;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.providers.LoopbackHosts;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Applications calling OpenAI with Apache HttpClient directly (5.x classic, 4.5
 * classic), no SDK and no Sluice config, meet a provider allowing {@value #RPM} requests a minute
 * with {@value #THREADS} callers offering far more. Every call goes through the governor, the
 * provider refuses at most 1 % of the attempts, no logical call takes more than Sluice's 3
 * attempts, and HttpClient's own retry layer stands aside for governed attempts (counted): a call
 * forced to a 503 afterwards is retried by Sluice alone.
 */
class ApacheHttpClientIT {

    static final String HOST = "api.openai.com";
    static final int THREADS = 6;
    /**
     * 66 calls against a limit of {@value #RPM}: the first {@value #RPM} go as the slow start and the
     * provider's headers allow, the other 6 wait for the refill, one a second. Under 100 calls, so
     * "at most 1 % of attempts" still means no provider 429 at all.
     */
    static final int CALLS = 11;

    static final int RPM = 60;
    static final int MAX_ATTEMPTS = 3;

    private static Simulator simulator() {
        return Simulator.builder()
                .profile(Profile.OPENAI)
                .limit(Dimension.REQUESTS, RPM, Duration.ofMinutes(1))
                .tokensPerMinute(10_000_000)
                .firstByteLatency(Duration.ofMillis(10))
                .latencyPerToken(Duration.ofMillis(1))
                .start();
    }

    /** What one forked run did, and what the provider saw. */
    record Run(JsonNode summary, List<Exchange> exchanges, Map<String, Integer> attemptsPerCall, String stderr) {

        long counter(String name) {
            return summary.path("counters").path(name).asLong();
        }

        /** Attempts of the load (not the forced call after it). */
        List<Exchange> load() {
            return exchanges.stream()
                    .filter(e -> e.callId() != null && !e.callId().startsWith("after-"))
                    .collect(Collectors.toList());
        }

        long load429s() {
            return load().stream().filter(e -> e.status() == 429).count();
        }

        int maxAttempts() {
            return attemptsPerCall.entrySet().stream()
                    .filter(e -> !e.getKey().startsWith("after-"))
                    .mapToInt(Map.Entry::getValue)
                    .max()
                    .orElse(0);
        }

        String figures() {
            return String.format(
                    "calls %d, completed %d, attempts seen by provider %d (load %d), provider 429s %d, max attempts/call %d, "
                            + "after-overload attempts %d, ungoverned after-overload attempts %d%n  summary %s",
                    summary.get("calls").asLong(),
                    summary.get("completed").asLong(),
                    exchanges.stream().filter(e -> e.callId() != null).count(),
                    load().size(),
                    load429s(),
                    maxAttempts(),
                    attemptsPerCall.getOrDefault("after-overload", 0),
                    attemptsPerCall.getOrDefault("after-ungoverned-overload", 0),
                    summary);
        }
    }

    static Run run(boolean agent, String mode, String app) throws Exception {
        return run(agent, mode, "overload", null, app);
    }

    /** One run of {@code app} (hc5, hc5-spring, hc5-async, hc4, or one of them @version); {@code trafficClass} sent as X-Sluice-Class, or null. */
    static Run run(boolean agent, String mode, String after, String trafficClass, String app) throws Exception {
        try (Simulator sim = simulator()) {
            String url = LoopbackHosts.url(HOST, sim.port(), "/v1/chat/completions");
            Object[] args;
            Class<?> main;
            int at = app.indexOf('@');
            if (at > 0) {
                main = VersionedApp.class;
                args = new Object[] {libs(app.substring(at + 1)), app.substring(0, at), url, THREADS, CALLS, mode, after
                };
            } else {
                main = ApacheHttpApp.class;
                args = new Object[] {app, url, THREADS, CALLS, mode, after};
            }
            if (trafficClass != null) {
                Object[] more = java.util.Arrays.copyOf(args, args.length + 1);
                more[args.length] = trafficClass;
                args = more;
            }
            ForkedApp.Result r = ForkedApp.of(main)
                    .withAgent(agent)
                    .timeout(Duration.ofMinutes(3))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .args(args)
                    .run()
                    .assertOk();
            if (agent) {
                assertThat(r.startLine()).contains("config=defaults").contains("apache-httpclient");
            }
            return new Run(r.summary(), sim.ledger().exchanges(), sim.ledger().attemptsPerCall(), r.stderr);
        }
    }

    static String libs(String version) {
        Path dir = Paths.get(System.getProperty("sluice.libs", "target/libs"), "hc5-" + version);
        assertThat(dir)
                .as("jars of HttpClient %s (mvn generate-test-resources copies them)", version)
                .isDirectory();
        return dir.toAbsolutePath().toString();
    }

    /** The figures every governed run must show; {@code layer} is HttpClient's retry layer. */
    static void assertGoverned(Run run, String layer) {
        String why = run.figures();
        long calls = (long) THREADS * CALLS;
        JsonNode s = run.summary();
        assertThat(s.get("calls").asLong()).as(why).isEqualTo(calls);
        assertThat(run.counter("jmx:calls"))
                .as("logical calls the governor saw (the load and the forced one)\n%s", why)
                .isEqualTo(calls + 1);
        assertThat(run.counter("jmx:attempts"))
                .as("every attempt the provider saw went through the governor\n%s", why)
                .isEqualTo(run.exchanges().stream()
                        .filter(e -> e.callId() != null && !e.callId().startsWith("after-ungoverned-"))
                        .count());
        assertThat(run.load429s())
                .as("provider 429s, at most 1 %% of attempts\n%s", why)
                .isLessThanOrEqualTo(run.load().size() / 100);
        assertThat(run.maxAttempts()).as("attempts per logical call\n%s", why).isLessThanOrEqualTo(MAX_ATTEMPTS);
        long local = run.counter("status:429:queue_deadline_exceeded") + run.counter("status:429:rejected_locally");
        assertThat(s.get("completed").asLong() + local)
                .as("every call completed or was refused locally\n%s", why)
                .isEqualTo(calls);
        assertThat(run.counter("status:429:provider")).as(why).isZero();
        assertThat(run.counter("stream:broken") + run.counter("body:without-usage"))
                .as(why)
                .isZero();
        // the forced 503: retried by Sluice alone, HttpClient's retry of each attempt declined
        int forced = run.attemptsPerCall().getOrDefault("after-overload", 0);
        assertThat(forced).as("attempts of the call forced to 503\n%s", why).isBetween(2, MAX_ATTEMPTS);
        assertThat(run.counter("layer:" + layer + ":passed"))
                .as("governed attempts went through %s with its retries off\n%s", layer, why)
                .isGreaterThanOrEqualTo(calls);
        assertThat(run.counter("layer:" + layer + ":declined"))
                .as("%s retries declined: one per attempt of the forced 503\n%s", layer, why)
                .isEqualTo(forced);
        assertThat(run.attemptsPerCall().getOrDefault("after-ungoverned-overload", 0))
                .as("a call Sluice does not govern keeps HttpClient's own retry of its 503\n%s", why)
                .isEqualTo(2);
    }

    @Test
    void hc5ClassicJsonIsGovernedAndItsRetryStrategyStandsAside() throws Exception {
        Run governed = run(true, "json", "hc5");
        System.out.printf("hc5 classic json, agent: %s%n", governed.figures());
        assertGoverned(governed, "apache-httpclient5-retry-strategy");
    }

    /**
     * The same load without the agent (figures for docs/apache-httpclient.md, and the test's
     * premises: the load is a storm, HttpClient retries a 503 itself). Nothing here is Sluice's
     * behaviour, so it runs with {@code -Dsluice.figures=true} only ({@link Figures}); the governed
     * runs still check that an ungoverned call keeps HttpClient's own retry.
     */
    @Test
    void withoutTheAgentTheStormMeets429sAndHttpClientRetriesThe503() throws Exception {
        Assumptions.assumeTrue(Figures.enabled(), "figures only: -D" + Figures.PROPERTY + "=true");
        Run baseline = run(false, "json", "hc5");
        System.out.printf("hc5 classic json, no agent: %s%n", baseline.figures());
        assertThat(baseline.load429s())
                .as("without the agent the storm meets 429s, or the test proves nothing\n%s", baseline.figures())
                .isGreaterThan(10);
        assertThat(baseline.attemptsPerCall().getOrDefault("after-ungoverned-overload", 0))
                .as("without the agent HttpClient retries the 503 itself")
                .isEqualTo(2);
        assertThat(baseline.attemptsPerCall().getOrDefault("after-overload", 0))
                .as("without the agent HttpClient retries the 503 itself")
                .isEqualTo(2);
    }

    @Test
    void hc5ClassicSseStreamsAreGovernedAndSettled() throws Exception {
        Run governed = run(true, "sse", "hc5");
        System.out.printf("hc5 classic sse, agent: %s%n", governed.figures());
        assertGoverned(governed, "apache-httpclient5-retry-strategy");
    }

    @Test
    void hc5Version52InAChildLoaderIsGoverned() throws Exception {
        Run governed = run(true, "json", "hc5@5.2");
        System.out.printf("hc5 5.2 classic json (child loader), agent: %s%n", governed.figures());
        assertThat(governed.stderr()).doesNotContain("fault while");
        assertGoverned(governed, "apache-httpclient5-retry-strategy");
    }

    /**
     * Spring's RestClient over HttpClient 5.5.1 / HttpCore 5.3.6 (Spring Boot 3.5's versions, what
     * Spring AI's sync calls go through): {@code executeOpen(null, ...)} with Spring's body entity,
     * which writes but has no {@code getContent()}. Every call is governed, HttpClient's retry
     * strategy stands aside, and each call counts as governed on the thread that made it, so a
     * spring-retry {@code RetryTemplate} around it makes one pass.
     */
    @Test
    void springRestClientOnHc55IsGovernedAndCountedOnItsThread() throws Exception {
        Run governed = run(true, "json", "hc5-spring@5.5");
        System.out.printf("hc5 5.5.1 under Spring RestClient (child loader), agent: %s%n", governed.figures());
        assertThat(governed.stderr())
                .as("Sluice's fault log (a hook that fails lets the call through ungoverned)")
                .doesNotContain("fault while");
        assertGoverned(governed, "apache-httpclient5-retry-strategy");
        assertThat(governed.counter("governedOnCallerThread"))
                .as(
                        "calls counted as governed on their caller's thread (the load and the forced one)\n%s",
                        governed.figures())
                .isEqualTo((long) THREADS * CALLS + 1);
        Run sse = run(true, "sse", "hc5-spring@5.5");
        System.out.printf("hc5 5.5.1 under Spring RestClient, sse, agent: %s%n", sse.figures());
        assertGoverned(sse, "apache-httpclient5-retry-strategy");
    }

    @Test
    void hc5AsyncJsonAndStreamsAreGovernedWithoutBlockingTheReactor() throws Exception {
        Run json = run(true, "json", "hc5-async");
        System.out.printf("hc5 async json, agent: %s%n", json.figures());
        assertGoverned(json, "apache-httpclient5-retry-strategy");
        Run sse = run(true, "sse", "hc5-async");
        System.out.printf("hc5 async sse, agent: %s%n", sse.figures());
        assertGoverned(sse, "apache-httpclient5-retry-strategy");
    }

    @Test
    void hc4ClassicIsGovernedAndItsRetryHandlersStandAside() throws Exception {
        Run governed = run(true, "json", "hc4");
        System.out.printf("hc4 classic json, agent: %s%n", governed.figures());
        assertGoverned(governed, "apache-httpclient4-retry-handler");
    }

    /**
     * Interactive callers (300 ms at most in the queue) in the same storm: what does not fit is
     * answered locally, a 429 in OpenAI's shape with the {@code sluice} object, which reaches the
     * application through each client's own response path (classic, async, HC4).
     */
    @Test
    void localRejectionsReachTheApplicationThroughEachClient() throws Exception {
        for (String library : List.of("hc5", "hc5-async", "hc4")) {
            Run run = run(true, "json", "-", "interactive", library);
            String why = library + ": " + run.figures();
            System.out.printf("%s interactive, agent: %s%n", library, run.figures());
            long local = 0;
            for (var it = run.summary().path("counters").fields(); it.hasNext(); ) {
                var e = it.next();
                if (e.getKey().startsWith("status:429:") && !e.getKey().endsWith(":provider")) {
                    local += e.getValue().asLong();
                }
            }
            long calls = (long) THREADS * CALLS;
            assertThat(local).as("calls refused locally\n%s", why).isPositive();
            assertThat(run.counter("localRejectionBody:true"))
                    .as("local rejections whose body names the decision\n%s", why)
                    .isEqualTo(local);
            assertThat(run.summary().get("completed").asLong() + local).as(why).isEqualTo(calls);
            assertThat(run.counter("status:429:provider")).as(why).isZero();
            assertThat(run.counter("jmx:calls")).as(why).isEqualTo(calls);
        }
    }

    /** Fewer than the pool's 5 connections per route: the drops alone never exhaust it. */
    static final int DROPPED = 4;

    /**
     * Responses dropped unread and unclosed give back their reservations (the governor holds
     * nothing once they are collected) and their connections: twice as many normal calls as the
     * pool has connections per route complete afterwards.
     */
    @Test
    void droppedResponsesReleaseTheirReservationsAndConnections() throws Exception {
        for (String library : List.of("hc5", "hc4")) {
            try (Simulator sim = simulator()) {
                String url = LoopbackHosts.url(HOST, sim.port(), "/v1/chat/completions");
                ForkedApp.Result r = ForkedApp.of(ApacheHttpApp.class)
                        .withAgent(true)
                        .timeout(Duration.ofMinutes(2))
                        .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                        .args(library, url, 1, DROPPED, "drop", "-")
                        .run()
                        .assertOk();
                JsonNode s = r.summary();
                System.out.printf("%s dropped bodies: %s%n", library, s);
                assertThat(s.path("counters").path("drop:inFlight").asLong())
                        .as("%s in flight: %s", library, s)
                        .isZero();
                assertThat(s.path("counters").path("drop:reserved").asLong())
                        .as("%s reserved: %s", library, s)
                        .isZero();
                assertThat(s.path("counters").path("afterDrop:status:200").asLong())
                        .as("%s calls after the drops (connections given back): %s", library, s)
                        .isEqualTo(10);
                assertThat(s.path("counters").path("jmx:calls").asLong())
                        .as("%s", s)
                        .isEqualTo(DROPPED + 10);
                assertThat(s.get("completed").asLong()).as("%s", s).isEqualTo(DROPPED + 10);
            }
        }
    }
}
