package dev.sluice.it.field;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.store.RedisServer;
import dev.sluice.it.field.FieldScenariosIT.Run;
import dev.sluice.it.harness.Figures;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.Table;
import dev.sluice.it.providers.LoopbackHosts;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * "Zero config in the field" for a fleet: three JVMs of one service (openai-java, one
 * key of organization {@code org-field}) start together against the field-like simulator, each with
 * the agent and no config but the shared store ({@code store: redis://...}). Nothing has been
 * learned yet: each JVM's cold start sends one call first, and the limits learned from the answers
 * are shared through Redis. With {@code -Dsluice.figures=true} ({@link Figures}) the same workload
 * also runs without the agent and with the agent but no store, for the figures only.
 */
class FieldFleetIT {

    private static final String HOST = "api.openai.com";
    /** The summary's field holding the agents' WARN and ERROR lines, jvm by jvm: a failure shows them. */
    private static final String AGENT_WARNINGS = "agentWarnings";

    private static final int JVMS = 3;
    private static final Table TABLE = new Table(
            "scenario", "agent", "calls ok", "attempts", "provider 429s", "429s at (s after first arrival)", "figure");

    @AfterAll
    static void print() {
        System.out.println("\nIn the field, a fleet (openai-java, no Sluice config but the store):\n" + TABLE);
    }

    /** Three JVMs started together, each running {@code appArgs}; their reports as groups jvm1..jvm3 of one run. */
    static Run fleet(boolean agent, RedisServer redis, Object... appArgs) throws Exception {
        return fleet(agent, redis, FieldScenariosIT::coldStartLimits, appArgs);
    }

    /** As {@link #fleet(boolean, RedisServer, Object...)}, the provider's organization and limits set by {@code limits}. */
    static Run fleet(
            boolean agent,
            RedisServer redis,
            java.util.function.UnaryOperator<Simulator.Builder> limits,
            Object... appArgs)
            throws Exception {
        String options = null;
        if (redis != null) {
            Path config = Files.createTempFile("sluice-field-fleet-", ".yaml");
            Files.writeString(config, "store: " + redis.url() + "\n");
            config.toFile().deleteOnExit();
            options = "config=" + config;
        }
        Simulator sim = limits.apply(Simulator.builder()
                        .profile(Profile.OPENAI)
                        .firstByteLatency(Duration.ofMillis(100))
                        .latencyPerToken(Duration.ofMillis(5))
                        .eachUnmappedKeyItsOwnOrganization())
                .start();
        try {
            String baseUrl = LoopbackHosts.url(HOST, sim.port(), "/v1");
            List<ForkedApp.Running> jvms = new ArrayList<>();
            for (int i = 0; i < JVMS; i++) {
                jvms.add(FieldScenariosIT.forked(agent, options, FieldApp.class, HOST, baseUrl, named(appArgs, i + 1))
                        .start());
            }
            ObjectNode summary = new ObjectMapper().createObjectNode();
            ObjectNode groups = summary.putObject("groups");
            ArrayNode warnings = summary.putArray(AGENT_WARNINGS);
            for (int i = 0; i < JVMS; i++) {
                ForkedApp.Result r =
                        jvms.get(i).awaitExit(Duration.ofSeconds(150)).assertOk();
                if (agent) {
                    assertThat(r.startLine())
                            .as("jvm%d's start line", i + 1)
                            .contains(redis == null ? "config=defaults" : "config=file");
                }
                for (String line : r.stderr.split("\n")) {
                    if (line.contains("WARN") || line.contains("ERROR")) {
                        warnings.add("jvm" + (i + 1) + ": " + line);
                    }
                }
                for (JsonNode group : r.summary().path("groups")) {
                    groups.set("jvm" + (i + 1), group);
                }
            }
            return new Run(summary, sim.ledger().exchanges(), sim);
        } finally {
            sim.close();
        }
    }

    /** The app's arguments for JVM {@code n}: its tenants named {@code jvmN-...}, so the provider's ledger tells the JVMs apart. */
    private static Object[] named(Object[] appArgs, int n) {
        Object[] named = appArgs.clone();
        for (int i = 0; i < named.length; i++) {
            if (named[i] instanceof String && ((String) named[i]).matches("[a-z0-9]+:[^:]+:\\d+")) {
                named[i] = "jvm" + n + "-" + named[i];
            }
        }
        return named;
    }

    /** Scenario a's organization (300 requests a minute, 50 at once) and workload, in three JVMs: 40 calls each. */
    static Run threeJvms(String agent, RedisServer redis) throws Exception {
        Run run = fleet(!agent.equals("without"), redis, "sync", 200, 60, 90, 40, "app:sk-field-1:6");
        FieldScenariosIT.row(
                TABLE,
                "g. 3 JVMs, cold start, sync",
                agent,
                run,
                String.format("goodput %.0f %% of the request limit", 100 * goodput(run)));
        return run;
    }

    /** DBSIZE, through redis-cli beside redis-server: the fleet did share its buckets there. */
    static long redisKeys(RedisServer redis) throws Exception {
        Path cli = Path.of(RedisServer.binary()).resolveSibling("redis-cli");
        Process p = new ProcessBuilder(cli.toString(), "-p", String.valueOf(redis.port()), "DBSIZE")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        p.waitFor();
        System.out.println("g. Redis DBSIZE after the fleet's run: " + out);
        return Long.parseLong(out.replaceAll("\\D", ""));
    }

    /** Calls admitted over what the request limit allows in the run: capacity x time + burst. */
    static double goodput(Run run) {
        double seconds = Duration.between(run.firstArrival(), run.lastArrival()).toNanos() / 1e9;
        double allows = 300 / 60.0 * seconds + 50;
        return run.exchanges().stream().filter(e -> e.status() == 200).count() / allows;
    }

    /**
     * The provider's limits at the fleet's pace: 90 requests and 18,000 tokens a minute, enforced
     * as buckets holding 20 s of the rate (30 requests, 6,000 tokens), refused requests not
     * counted; each JVM runs 3 callers sharing 30 calls, so the request limit paces the whole run.
     */
    static Simulator.Builder fleetAtTheLimit(Simulator.Builder b) {
        return b.organization(FieldScenariosIT.ORG, "sk-field-1")
                .countRefusedRequests(false)
                .limit(Limit.perMinute(Dimension.REQUESTS, 90).burst(30))
                .limit(Limit.perMinute(Dimension.TOKENS, 18_000).burst(6_000));
    }

    @Test
    void h_threeJvmsOnRedisAtTheProvidersLimit() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            Run run = fleet(true, redis, FieldFleetIT::fleetAtTheLimit, "sync", 64, 200, 90, 30, "app:sk-field-1:3");
            FieldScenariosIT.row(
                    TABLE,
                    "h. 3 JVMs at the limit, sync",
                    "with, Redis",
                    run,
                    String.format("%d calls in %.0f s", run.completed(), seconds(run)));
            java.time.Instant first = run.firstArrival();
            System.out.println("h. arrivals (ms after the first:status:jvm): "
                    + run.exchanges().stream()
                            .sorted(java.util.Comparator.comparing(dev.sluice.simulator.ledger.Exchange::arrivedAt))
                            .map(e ->
                                    "+" + Duration.between(first, e.arrivedAt()).toMillis() + ":" + e.status() + ":"
                                            + e.tenant())
                            .collect(java.util.stream.Collectors.joining(" ")));
            assertThat(run.completed()).as("calls completed").isEqualTo(90);
            assertThat(run.percent429())
                    .as(
                            "provider 429s, %% of attempts: %s%nthe agents' warnings: %s%narrivals (ms after the first:status): %s",
                            run.when429s(), run.summary().get(AGENT_WARNINGS), run.arrivalsAround429s())
                    .isLessThanOrEqualTo(1.0);
        }
    }

    private static double seconds(Run run) {
        return Duration.between(run.firstArrival(), run.lastArrival()).toNanos() / 1e9;
    }

    @Test
    void g_threeJvmsOnRedisStartingTogether() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            if (Figures.enabled()) {
                threeJvms("without", null);
                // figures only: what the store adds over each JVM pacing alone from the headers it reads
                threeJvms("with, no store", null);
            }
            Run run = threeJvms("with, Redis", redis);
            assertThat(redisKeys(redis)).as("keys the fleet keeps in Redis").isGreaterThan(0);
            assertThat(run.percent429())
                    .as(
                            "provider 429s, %% of attempts: %s%nthe agents' warnings: %s%narrivals (ms after the first:status): %s",
                            run.when429s(), run.summary().get(AGENT_WARNINGS), run.arrivalsAround429s())
                    .isLessThanOrEqualTo(1.0);
        }
    }
}
