package dev.sluice.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.jmx.SteadyTrafficApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.fault.FaultKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's metrics as an operator meets them: a service under load on the simulator scraped
 * in the Prometheus text format and in OpenMetrics, tenants folded past the configured number, the
 * shipped dashboard's every series present in a scrape; a port already taken costs one log line;
 * the endpoint never keeps a JVM alive; the GenAI instruments reach an application's own
 * OpenTelemetry SDK.
 */
public class MetricsIT {

    static final Path DASHBOARD =
            Paths.get(System.getProperty("sluice.ops", "../ops"), "grafana/sluice-dashboard.json");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Simulator sim;
    private Path config;
    private ForkedApp.Running app;

    @BeforeEach
    void startSimulator() throws Exception {
        sim = simulator();
        config = Files.createTempFile("sluice-metrics-it-", ".yaml");
        Files.writeString(config, config(sim), StandardCharsets.UTF_8);
    }

    @AfterEach
    void stop() throws Exception {
        if (app != null) {
            app.kill();
            app.process().waitFor(10, TimeUnit.SECONDS);
        }
        sim.close();
        Files.deleteIfExists(config);
    }

    /** A simulated OpenAI that never refuses by itself: refusals come from its faults only. */
    public static Simulator simulator() {
        return Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(1_000_000)
                .tokensPerMinute(100_000_000)
                .instant()
                .start();
    }

    /** A provider with a configured limit of 20 calls a second, two tenants, a daily budget. */
    public static String config(Simulator sim) {
        return String.join(
                "\n",
                "providers:",
                "  - name: sim",
                "    kind: openai",
                "    match:",
                "      urls: [\"" + sim.apiBaseUrl() + "/\"]",
                "    limits:",
                "      - id: sim-rpm",
                "        dimension: requests",
                "        capacity: 20",
                "        window: 1s",
                "limits:",
                "  - id: daily-spend",
                "    dimension: spend",
                "    amount: 100",
                "    period: day",
                "tenants:",
                "  - name: alpha",
                "  - name: beta",
                "");
    }

    @Test
    void anOperatorScrapesAServiceUnderLoad() throws Exception {
        int port = freePort();
        app = ForkedApp.of(SteadyTrafficApp.class)
                .withAgent("config=" + config + ",metrics=" + port + ",metrics.maxTenants=1")
                .args(sim.apiBaseUrl(), 60, 2, "alpha", "beta", "gamma")
                .start();
        await("the endpoint and some traffic")
                .atMost(Duration.ofSeconds(30))
                .until(() -> value(scrapeOrEmpty(port), "sluice_admitted_total") >= 20);

        HttpResponse<String> text = scrape(port, "text/plain");
        assertThat(text.statusCode()).isEqualTo(200);
        assertThat(text.headers().firstValue("content-type").orElse("")).startsWith("text/plain; version=0.0.4");
        String body = text.body();
        assertThat(body)
                .contains("# TYPE gen_ai_client_token_usage histogram")
                .contains("# TYPE gen_ai_client_operation_duration_seconds histogram")
                .containsPattern(
                        "gen_ai_client_token_usage_bucket\\{gen_ai_operation_name=\"chat\",gen_ai_provider_name="
                                + "\"openai\",gen_ai_request_model=\"gpt-4o-mini\",gen_ai_response_model=\"gpt-4o-mini\","
                                + "gen_ai_token_type=\"input\",le=\"16384.0\"\\} [1-9]")
                .containsPattern("gen_ai_client_operation_duration_seconds_bucket\\{[^}]*le=\"81.92\"\\} [1-9]")
                .containsPattern("sluice_limit_capacity\\{[^}]*limit=\"sim-rpm\"[^}]*\\} 20.0")
                .containsPattern("sluice_tenant_admitted_total\\{tenant=\"alpha\"\\} [1-9]")
                .containsPattern("sluice_tenant_admitted_total\\{tenant=\"other\"\\} [1-9]")
                .contains("sluice_budget_amount{budget=\"daily-spend\"")
                .doesNotContain("tenant=\"beta\"")
                .doesNotContain("tenant=\"gamma\"")
                .doesNotContain("sk-steady-app")
                .doesNotContain("Say hello");
        long admitted = value(body, "sluice_admitted_total");
        await("the series move with the traffic")
                .atMost(Duration.ofSeconds(10))
                .until(() -> value(scrape(port, "text/plain").body(), "sluice_admitted_total") > admitted);

        HttpResponse<String> open = scrape(port, "application/openmetrics-text; version=1.0.0");
        assertThat(open.headers().firstValue("content-type").orElse("")).startsWith("application/openmetrics-text");
        assertThat(open.body())
                .contains("# TYPE gen_ai_client_token_usage histogram")
                .endsWith("# EOF\n");

        // a few refusals, as a provider's storm would bring: the refusal series appear with them
        sim.faults().next(FaultKind.RATE_LIMITED, 3);
        await("refusals counted")
                .atMost(Duration.ofSeconds(10))
                .until(() -> scrape(port, "text/plain").body().contains("sluice_provider_refusals_total{"));
        Set<String> exported = seriesNames(scrape(port, "text/plain").body());
        for (String name : dashboardSeries()) {
            assertThat(exported)
                    .as("the dashboard's series %s is exported", name)
                    .contains(name);
        }
    }

    @Test
    void aPortInUseCostsOneLogLineAndTheServiceRunsOn() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("0.0.0.0", 0));
            ForkedApp.Result r = ForkedApp.of(dev.sluice.it.apps.OpenAiOneCallApp.class)
                    .withAgent("config=" + config + ",metrics=" + taken.getLocalPort())
                    .args(sim.apiBaseUrl())
                    .timeout(Duration.ofSeconds(60))
                    .run()
                    .assertOk();
            assertThat(r.stdout).contains("COMPLETION=");
            assertThat(r.stderr.split("metrics endpoint not started", -1)).hasSize(2);
            assertThat(r.stderr).contains(":" + taken.getLocalPort() + " is in use");
        }
    }

    @Test
    void theEndpointNeverKeepsTheJvmAlive() throws Exception {
        int port = freePort();
        ForkedApp.Result r = ForkedApp.of(SelfScrapeApp.class)
                .withAgent("config=" + config + ",metrics=" + port)
                .args(sim.apiBaseUrl(), port)
                .timeout(Duration.ofSeconds(60))
                .run()
                .assertOk();
        assertThat(r.stdout).contains("SCRAPED true").contains("THREAD sluice-metrics daemon=true");
        assertThat(r.stdout).doesNotContain("daemon=false");
    }

    @Test
    void theGenAiInstrumentsReachTheApplicationsOpenTelemetrySdk() throws Exception {
        ForkedApp.Result r = ForkedApp.of(OpenTelemetryApp.class)
                .withAgent("config=" + config + ",metrics.openTelemetry=true")
                .args(sim.apiBaseUrl(), 3)
                .timeout(Duration.ofSeconds(60))
                .run()
                .assertOk();
        List<String> points = new ArrayList<>();
        for (String line : r.stdout.split("\n")) {
            if (line.startsWith("POINT ")) {
                points.add(line);
            }
        }
        // The first call may end before the application's SDK was found (looked for every few seconds).
        assertThat(points)
                .anySatisfy(p -> assertThat(p)
                        .startsWith("POINT gen_ai.client.token.usage {token} ")
                        .contains("gen_ai.operation.name=\"chat\"")
                        .contains("gen_ai.provider.name=\"openai\"")
                        .contains("gen_ai.request.model=\"gpt-4o-mini\"")
                        .contains("gen_ai.response.model=\"gpt-4o-mini\"") // as the simulator's answer names it
                        .contains("gen_ai.token.type=\"output\"")
                        .contains("bounds=[1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0,"
                                + " 1048576.0, 4194304.0, 1.6777216E7, 6.7108864E7]"))
                .anySatisfy(p -> assertThat(p)
                        .startsWith("POINT gen_ai.client.operation.duration s ")
                        .contains("gen_ai.request.model=\"gpt-4o-mini\"")
                        .contains("gen_ai.response.model=\"gpt-4o-mini\"")
                        .doesNotContain("error.type")
                        .contains("bounds=[0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,"
                                + " 40.96, 81.92]"));
        assertThat(r.stderr).doesNotContain("Prometheus").doesNotContain("metrics served");
    }

    // ------------------------------------------------------------------ helpers

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static HttpResponse<String> scrape(int port, String accept) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .header("Accept", accept)
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static String scrapeOrEmpty(int port) {
        try {
            return scrape(port, "text/plain").body();
        } catch (IOException | InterruptedException notYet) {
            return "";
        }
    }

    /** The value of an unlabelled series in a scrape; -1 when absent. */
    static long value(String scrape, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + " ([0-9.E]+)$").matcher(scrape);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    /** Every series name in a scrape ({@code _bucket}, {@code _total}... as written). */
    static Set<String> seriesNames(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                int end = line.indexOf('{');
                names.add(line.substring(0, end < 0 ? line.indexOf(' ') : end));
            }
        }
        return names;
    }

    /** The series the shipped dashboard's expressions name. */
    static Set<String> dashboardSeries() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        Set<String> names = new TreeSet<>();
        for (JsonNode panel : dashboard.get("panels")) {
            if (panel.has("targets")) {
                for (JsonNode target : panel.get("targets")) {
                    names.addAll(seriesIn(target.get("expr").asText()));
                }
            }
        }
        assertThat(names).as("series named by the dashboard").hasSizeGreaterThan(15);
        return names;
    }

    /** The metric names a PromQL expression selects (label matchers and grouping clauses left out). */
    static Set<String> seriesIn(String expr) {
        String bare = expr.replaceAll("\\{[^}]*\\}", "")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "");
        Set<String> names = new TreeSet<>();
        Matcher m =
                Pattern.compile("\\b(sluice_[a-z0-9_]+|gen_ai_[a-z0-9_]+)\\b").matcher(bare);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
