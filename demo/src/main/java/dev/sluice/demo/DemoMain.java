package dev.sluice.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Quick start: a multi-tenant service using the real openai-java SDK at its defaults runs
 * against the embedded simulator twice, first as it is, then with {@code -javaagent:sluice-agent.jar},
 * and the two runs are compared side by side, with a chart of what the provider admitted and
 * refused each second.
 */
public final class DemoMain {

    /**
     * The simulated provider: 600 requests and 60 000 tokens a minute for the demo's key, enforced
     * per second as OpenAI does (60 RPM behaves like 1 per second).
     */
    static final long REQUESTS_PER_MINUTE = 600;

    static final long TOKENS_PER_MINUTE = 60_000;

    /**
     * People behind two interactive tenants (a call, then a second reading the answer) and two
     * batch jobs calling as fast as they can: together about three times what the provider
     * admits (ten calls a second).
     */
    static final List<Tenant> TENANTS = List.of(
            new Tenant("search", "interactive", 3, 1_000),
            new Tenant("support", "interactive", 2, 1_000),
            new Tenant("reports", "batch", 4, 0),
            new Tenant("analytics", "batch", 3, 0));

    static final Duration RUN = Duration.ofSeconds(Long.getLong("demo.seconds", 25));

    /** {@code -Ddemo.without=false} skips the run without Sluice (when working on Sluice itself). */
    static final boolean RUN_WITHOUT = !"false".equals(System.getProperty("demo.without"));

    /** Sluice's configuration for the second run: who weighs what; the provider's limits are learned. */
    static final String SLUICE_CONFIG = String.join(
            "\n",
            "# Written by the demo. Provider limits are not configured: Sluice learns them from",
            "# OpenAI's x-ratelimit-* headers. Tenants and classes come from X-Sluice-* headers.",
            "tenants:",
            "  - name: search",
            "    weight: 2",
            "    guaranteedShare: 0.3",
            "  - name: support",
            "    weight: 1",
            "  - name: reports",
            "    weight: 1",
            "  - name: analytics",
            "    weight: 1",
            "");

    public static void main(String[] args) throws Exception {
        Path agentJar = agentJar();
        Path out = Paths.get(System.getProperty("demo.out", "demo/target"));
        Files.createDirectories(out);
        System.out.println("Sluice demo: a multi-tenant openai-java service against a simulated OpenAI that admits "
                + REQUESTS_PER_MINUTE + " requests/min and " + TOKENS_PER_MINUTE + " tokens/min.");
        System.out.println("Offered load: about 3x the provider's capacity; each run lasts " + RUN.toSeconds() + " s.");
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                // per-minute limits announced in the headers, enforced over a second's burst
                .limit(Limit.perMinute(Dimension.REQUESTS, REQUESTS_PER_MINUTE).burst(REQUESTS_PER_MINUTE / 60))
                .limit(Limit.perMinute(Dimension.TOKENS, TOKENS_PER_MINUTE).burst(TOKENS_PER_MINUTE / 60))
                .outputTokens(48)
                .firstByteLatency(Duration.ofMillis(150))
                .latencyPerToken(Duration.ofMillis(2))
                .tenantHeaders("x-sim-tenant")
                .callIdHeader("x-sim-call-id")
                .start()) {
            // The service believes it talks to api.openai.com (the JVM resolves that name from a hosts
            // file to the simulator): Sluice recognises OpenAI by its host, with no provider config.
            Path hosts = out.resolve("sluice-demo.hosts");
            Files.writeString(hosts, "127.0.0.1 api.openai.com\n", StandardCharsets.UTF_8);
            String baseUrl = "http://api.openai.com:" + sim.port() + "/v1";
            RunFigures without = run(sim, baseUrl, hosts, "without Sluice", null, null);
            Path config = out.resolve("sluice-demo.yaml");
            Files.writeString(
                    config, Boolean.getBoolean("demo.plain") ? "{}\n" : SLUICE_CONFIG, StandardCharsets.UTF_8);
            RunFigures with = run(sim, baseUrl, hosts, "with Sluice", agentJar, config);
            printTable(without, with);
            Path chart = out.resolve("sluice-demo.svg");
            writeChart(chart, without, with);
            System.out.println();
            System.out.println("Chart of admitted and refused requests per second: " + chart.toAbsolutePath());
        }
    }

    private static RunFigures run(Simulator sim, String baseUrl, Path hosts, String label, Path agentJar, Path config)
            throws Exception {
        sim.reset();
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-Djdk.net.hosts.file=" + hosts.toAbsolutePath());
        if (agentJar != null) {
            cmd.add("-Dsluice.stateFile=off"); // the demo shows a cold start every time
            cmd.add("-javaagent:" + agentJar + "=config=" + config.toAbsolutePath());
        }
        cmd.add("-cp");
        cmd.add(ownClassPath());
        cmd.add(Workload.class.getName());
        cmd.add(baseUrl);
        cmd.add(Long.toString(RUN.toSeconds()));
        for (Tenant t : TENANTS) {
            cmd.add(t.name() + ":" + t.trafficClass() + ":" + t.callers() + ":" + t.thinkMillis());
        }
        System.out.println();
        System.out.println(
                "Run " + label + (agentJar != null ? " (-javaagent:" + agentJar.getFileName() + ")" : "") + " ...");
        Instant started = Instant.now();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        Thread errors = relayStderr(p, label);
        JsonNode summary = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("PROGRESS ")) {
                    String[] f = line.split(" ");
                    System.out.printf(
                            Locale.ROOT, "  %-15s %3s s: %5s calls made, %5s completed%n", label, f[1], f[2], f[3]);
                } else if (line.startsWith("SUMMARY ")) {
                    summary = new ObjectMapper().readTree(line.substring(8));
                }
            }
        }
        if (!p.waitFor(RUN.toSeconds() + 120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(label + ": the service did not finish");
        }
        errors.join(2_000);
        if (summary == null) {
            throw new IllegalStateException(label + ": the service printed no summary (exit " + p.exitValue() + ")");
        }
        List<Exchange> exchanges = sim.ledger().exchanges().stream()
                .filter(e -> !e.arrivedAt().isBefore(started))
                .toList();
        return new RunFigures(label, summary, exchanges, RUN);
    }

    /** The agent's start line, and anything that looks like trouble, shown as they come. */
    private static Thread relayStderr(Process p, String label) {
        Thread t = new Thread(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("[sluice]") || line.contains("Exception") && !line.contains("RateLimit")) {
                        System.out.println("  " + label + " | " + line);
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void printTable(RunFigures without, RunFigures with) {
        System.out.println();
        System.out.printf(Locale.ROOT, "%-58s %16s %16s%n", "", without.label(), with.label());
        row("logical calls made", without.appTotal("calls"), with.appTotal("calls"));
        row("  completed", without.appTotal("completed"), with.appTotal("completed"));
        row(
                "  refused by the provider (429 raised)",
                without.appTotal("providerRejections"),
                with.appTotal("providerRejections"));
        row(
                "  refused locally by Sluice (429 raised)",
                without.appTotal("localRejections"),
                with.appTotal("localRejections"));
        row("attempts the provider saw", without.providerAttempts(), with.providerAttempts());
        row("  of which provider 429s", without.provider429s(), with.provider429s());
        System.out.printf(
                Locale.ROOT,
                "%-58s %16s %16s%n",
                "goodput, requests/min (capacity " + REQUESTS_PER_MINUTE + ")",
                String.format(Locale.ROOT, "%.0f", without.admittedPerMinute()),
                String.format(Locale.ROOT, "%.0f", with.admittedPerMinute()));
        System.out.printf(
                Locale.ROOT,
                "%-58s %16s %16s%n",
                "goodput, tokens/min (capacity " + TOKENS_PER_MINUTE + ")",
                String.format(Locale.ROOT, "%.0f", without.tokensPerMinute()),
                String.format(Locale.ROOT, "%.0f", with.tokensPerMinute()));
        for (String cls : List.of("interactive", "batch")) {
            JsonNode a = without.app().get("classes").get(cls);
            JsonNode b = with.app().get("classes").get(cls);
            System.out.printf(
                    Locale.ROOT,
                    "%-58s %16s %16s%n",
                    "latency " + cls + " p50 / p95 (ms)",
                    a.get("p50Millis").asLong() + " / " + a.get("p95Millis").asLong(),
                    b.get("p50Millis").asLong() + " / " + b.get("p95Millis").asLong());
        }
        Map<String, Double> sharesWithout = without.tenantShares(TENANTS);
        Map<String, Double> sharesWith = with.tenantShares(TENANTS);
        for (Tenant t : TENANTS) {
            System.out.printf(
                    Locale.ROOT,
                    "%-58s %15.1f%% %15.1f%%%n",
                    "share of admitted tokens, " + t.name() + " (" + t.trafficClass() + ", " + t.callers()
                            + " callers)",
                    sharesWithout.get(t.name()),
                    sharesWith.get(t.name()));
        }
        System.out.println();
        System.out.println("Sluice's config for the second run: tenant search weighs 2 with 30 % guaranteed; the others"
                + " weigh 1; the provider's limits were learned from its headers.");
    }

    private static void row(String name, long a, long b) {
        System.out.printf(Locale.ROOT, "%-58s %16d %16d%n", name, a, b);
    }

    private static void writeChart(Path file, RunFigures without, RunFigures with) throws IOException {
        int seconds = (int) RUN.toSeconds();
        List<Chart.Panel> panels = new ArrayList<>();
        for (RunFigures r : List.of(without, with)) {
            Instant start = r.exchanges().isEmpty()
                    ? Instant.now()
                    : r.exchanges().get(0).arrivedAt();
            long[][] s = r.perSecond(start, seconds);
            panels.add(new Chart.Panel(r.label(), s[0], s[1]));
        }
        Chart.write(
                file,
                "Requests per second at the simulated provider (capacity " + REQUESTS_PER_MINUTE / 60 + "/s)",
                panels,
                REQUESTS_PER_MINUTE / 60);
    }

    /** The agent jar: {@code -Dsluice.agent.jar}, else the one the build left in agent/target. */
    private static Path agentJar() {
        Path jar = Paths.get(System.getProperty("sluice.agent.jar", "agent/target/sluice-agent.jar"))
                .toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no agent jar at " + jar + ": build it first (mvn -B -q package "
                    + "-DskipTests), or run from the repository's root");
        }
        return jar;
    }

    private static String ownClassPath() {
        return System.getProperty("java.class.path").split(File.pathSeparator).length > 1
                ? System.getProperty("java.class.path")
                : Paths.get(System.getProperty("java.class.path"))
                        .toAbsolutePath()
                        .toString();
    }
}
