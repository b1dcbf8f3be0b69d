package dev.sluice.it.retry;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import dev.sluice.simulator.ledger.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Map;

/**
 * One run of {@link SdkCallsApp} against a fresh simulator, with or without the agent, and what
 * the provider saw: attempts per logical call, rejected attempts, calls completed.
 */
final class RetryRun {

    /** The SDKs under test: the app's name, the simulator profile, the Sluice provider kind, the API path prefix. */
    enum Sdk {
        OPENAI("openai", Profile.OPENAI, "openai", "/v1/"),
        ANTHROPIC("anthropic", Profile.ANTHROPIC, "anthropic", "/v1/"),
        GENAI("genai", Profile.GEMINI, "gemini", "/"),
        LANGCHAIN4J("langchain4j", Profile.OPENAI, "openai", "/v1/");

        final String app;
        final Profile profile;
        final String kind;
        final String prefix;

        Sdk(String app, Profile profile, String kind, String prefix) {
            this.app = app;
            this.profile = profile;
            this.kind = kind;
            this.prefix = prefix;
        }
    }

    final Sdk sdk;
    final boolean agent;
    final JsonNode summary;
    final List<Exchange> exchanges;
    final Map<String, Integer> attemptsPerCall;
    final String stderr;

    private RetryRun(
            Sdk sdk,
            boolean agent,
            JsonNode summary,
            List<Exchange> exchanges,
            Map<String, Integer> attemptsPerCall,
            String stderr) {
        this.sdk = sdk;
        this.agent = agent;
        this.summary = summary;
        this.exchanges = exchanges;
        this.attemptsPerCall = attemptsPerCall;
        this.stderr = stderr;
    }

    /**
     * Runs the app. {@code requestsPerSecond} 0 means no limit; {@code force} a simulator fault
     * name for every request, or null.
     */
    static RetryRun run(
            Sdk sdk, boolean agent, int requestsPerSecond, int threads, int calls, String force, boolean lateAttach)
            throws Exception {
        return run(sdk, agent, requestsPerSecond, false, threads, calls, force, lateAttach);
    }

    /** As above; {@code sluiceKnowsLimit}: Sluice's config declares the provider's limit, as a team would for its tier. */
    static RetryRun run(
            Sdk sdk,
            boolean agent,
            int requestsPerSecond,
            boolean sluiceKnowsLimit,
            int threads,
            int calls,
            String force,
            boolean lateAttach)
            throws Exception {
        return run(sdk, agent, requestsPerSecond, sluiceKnowsLimit, threads, calls, force, lateAttach, "enforce");
    }

    /** As above, in the given agent mode (an agent option, over the config file's {@code enforce}). */
    static RetryRun run(
            Sdk sdk,
            boolean agent,
            int requestsPerSecond,
            boolean sluiceKnowsLimit,
            int threads,
            int calls,
            String force,
            boolean lateAttach,
            String mode)
            throws Exception {
        return run(
                SdkCallsApp.class,
                sdk,
                agent,
                requestsPerSecond,
                sluiceKnowsLimit,
                threads,
                calls,
                force,
                lateAttach,
                mode);
    }

    /** As above, started through {@code main} ({@link SdkCallsApp}, or {@link ChildLoaderApp} around it). */
    static RetryRun run(
            Class<?> main,
            Sdk sdk,
            boolean agent,
            int requestsPerSecond,
            boolean sluiceKnowsLimit,
            int threads,
            int calls,
            String force,
            boolean lateAttach,
            String mode)
            throws Exception {
        Simulator.Builder b = Simulator.builder().profile(sdk.profile).instant();
        if (requestsPerSecond > 0) {
            b.limit(Dimension.REQUESTS, requestsPerSecond, Duration.ofSeconds(1));
        } else {
            b.requestsPerMinute(1_000_000).tokensPerMinute(100_000_000);
        }
        try (Simulator sim = b.start()) {
            List<Object> args =
                    new ArrayList<>(List.of(sdk.app, sim.baseUrl(), threads, calls, force == null ? "-" : force));
            ForkedApp app = ForkedApp.of(main).timeout(Duration.ofMinutes(2));
            String agentArgs = "config=" + config(sim, sdk, sluiceKnowsLimit ? requestsPerSecond : 0) + ",mode=" + mode;
            if (lateAttach) {
                args.addAll(List.of("attach", ForkedApp.AGENT_JAR.toString(), agentArgs));
                app.systemProperty("jdk.attach.allowAttachSelf", "true");
            } else if (agent) {
                app.withAgent(agentArgs);
            }
            ForkedApp.Result r = app.args(args.toArray()).run().assertOk();
            return new RetryRun(
                    sdk,
                    agent || lateAttach,
                    r.summary(),
                    sim.ledger().exchanges(),
                    sim.ledger().attemptsPerCall(),
                    r.stderr);
        }
    }

    /**
     * A config that names the simulator as the SDK's provider, learning nothing from its headers
     * (they would read the simulator's per-second budgets as OpenAI's per-minute ones), with the
     * provider's limit declared when {@code requestsPerSecond > 0}. Without it Sluice knows the
     * limit only from refusals, so its retry loop (not its pacing) meets the storm.
     */
    private static String config(Simulator sim, Sdk sdk, int requestsPerSecond) throws IOException {
        Path file = Files.createTempFile("sluice-retry-", ".yaml");
        file.toFile().deleteOnExit();
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "mode: enforce",
                        "providers:",
                        "  - name: sim",
                        "    kind: " + sdk.kind,
                        "    learnFromHeaders: false",
                        "    match:",
                        "      urls: [\"" + sim.baseUrl() + sdk.prefix + "\"]",
                        requestsPerSecond <= 0
                                ? ""
                                : String.join(
                                        "\n",
                                        "    limits:",
                                        "      - dimension: requests",
                                        "        capacity: " + requestsPerSecond,
                                        "        window: 1s",
                                        ""),
                        ""),
                StandardCharsets.UTF_8);
        return file.toString();
    }

    long completed() {
        return summary.get("completed").asLong();
    }

    long calls() {
        return summary.get("calls").asLong();
    }

    long counter(String name) {
        JsonNode n = summary.get("counters").get(name);
        return n == null ? 0 : n.asLong();
    }

    /** Sum of the counters whose name starts with this prefix. */
    long counters(String prefix) {
        long sum = 0;
        for (var it = summary.get("counters").fields(); it.hasNext(); ) {
            var e = it.next();
            if (e.getKey().startsWith(prefix)) {
                sum += e.getValue().asLong();
            }
        }
        return sum;
    }

    IntSummaryStatistics attempts() {
        return attemptsPerCall.values().stream().mapToInt(Integer::intValue).summaryStatistics();
    }

    /** Attempts the provider refused (429, 503/529, other errors, resets). */
    long refusedAttempts() {
        return exchanges.stream()
                .filter(e -> e.callId() != null && e.outcome() != Outcome.ADMITTED)
                .count();
    }

    /** The ledger's exchanges of one logical call, in arrival order. */
    List<Exchange> attemptsOf(String callId) {
        List<Exchange> out = new ArrayList<>();
        for (Exchange e : exchanges) {
            if (callId.equals(e.callId())) {
                out.add(e);
            }
        }
        out.sort(java.util.Comparator.comparing(Exchange::arrivedAt));
        return out;
    }

    /** Retries the provider saw: attempts beyond the first of each logical call. */
    long retries() {
        return attemptsPerCall.values().stream().mapToLong(a -> a - 1).sum();
    }

    double elapsedSeconds() {
        return summary.get("elapsedMillis").asLong() / 1000.0;
    }

    long rateLimited() {
        return exchanges.stream()
                .filter(e -> e.callId() != null && e.status() == 429)
                .count();
    }

    /** One line of the comparison table. */
    String row(String scenario) {
        IntSummaryStatistics a = attempts();
        return String.format(
                "| %s | %s | %s | %d | %d / %d | %d | %.2f | %d | %d |",
                sdk.app,
                scenario,
                agent ? "Sluice" : "SDK retries (no agent)",
                exchanges.stream().filter(e -> e.callId() != null).count(),
                completed(),
                calls(),
                a.getMax(),
                a.getAverage(),
                rateLimited(),
                refusedAttempts());
    }

    static final String HEADER =
            "| SDK | scenario | retries by | attempts seen by provider | calls completed | max attempts/call "
                    + "| mean attempts/call | 429s seen by provider | refused attempts |\n|---|---|---|---|---|---|---|---|---|";

    /** Prints the row and appends it to target/retry-comparison.md (the table docs/retries.md quotes). */
    void record(String scenario) throws IOException {
        String row = row(scenario);
        System.out.println(row + "  layers=" + layers());
        Path table = Paths.get("target", "retry-comparison.md");
        if (!Files.exists(table)) {
            Files.writeString(table, HEADER + "\n", StandardCharsets.UTF_8);
        }
        Files.writeString(table, row + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    String layers() {
        StringBuilder s = new StringBuilder();
        summary.get("counters").fields().forEachRemaining(e -> {
            if (e.getKey().startsWith("layer:")) {
                s.append(e.getKey().substring(6))
                        .append('=')
                        .append(e.getValue().asLong())
                        .append(' ');
            }
        });
        return s.toString().trim();
    }

    @Override
    public String toString() {
        return row("") + "\nsummary=" + summary + "\nstderr tail=" + tail(stderr);
    }

    private static String tail(String s) {
        return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
    }
}
