package dev.sluice.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.jmx.SteadyTrafficApp;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.fault.FaultKind;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shipped rules and a real Prometheus server (Debian's {@code prometheus} package, which
 * {@code .ci/run} installs): {@code promtool check rules} accepts the rules file; a Prometheus of
 * the test's own (a temp dir for its data, 1 s scrapes and rule evaluations) scrapes a service
 * under load on the simulator; the series exist and move with the traffic, and when the simulator
 * storms with 429s the 429 alert fires. The rules run as shipped, except that {@code for:} is 0 s,
 * so the test takes seconds, not minutes.
 */
class PrometheusServerIT {

    static final Path RULES = Paths.get(System.getProperty("sluice.ops", "../ops"), "prometheus/sluice-rules.yml");

    /** Series a rule names that exist only once what they count happened. */
    static final Set<String> ONLY_WHEN_SEEN = Set.of("sluice_ungoverned_connections_total");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Simulator sim;
    private Path dir;
    private ForkedApp.Running app;
    private Process prometheus;
    private int prometheusPort;

    @BeforeEach
    void start() throws Exception {
        assertThat(Paths.get("/usr/bin/prometheus"))
                .as("Debian's prometheus package (apt-get install prometheus; .ci/run installs it)")
                .exists();
        sim = MetricsIT.simulator();
        dir = Files.createTempDirectory("sluice-prometheus-it-");
    }

    @AfterEach
    void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            prometheus.waitFor(10, TimeUnit.SECONDS);
        }
        if (app != null) {
            app.kill();
            app.process().waitFor(10, TimeUnit.SECONDS);
        }
        sim.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }

    @Test
    void promtoolAcceptsTheShippedRules() throws Exception {
        Process check = new ProcessBuilder("promtool", "check", "rules", RULES.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(check.exitValue()).as(out).isZero();
        assertThat(out).contains("SUCCESS: 8 rules found");
    }

    @Test
    void aPrometheusServerScrapesTheServiceAndTheAlertFiresWhenTheProviderStorms() throws Exception {
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, MetricsIT.config(sim), StandardCharsets.UTF_8);
        int metricsPort = MetricsIT.freePort();
        app = ForkedApp.of(SteadyTrafficApp.class)
                .withAgent("config=" + config + ",metrics=" + metricsPort)
                .args(sim.apiBaseUrl(), 90, 2, "alpha", "beta")
                .start();
        startPrometheus(metricsPort);

        await("the first scrapes").atMost(Duration.ofSeconds(30)).until(() -> scalar("sum(sluice_admitted_total)") > 0);
        double first = scalar("sum(sluice_admitted_total)");
        await("the series move with the traffic")
                .atMost(Duration.ofSeconds(15))
                .until(() -> scalar("sum(sluice_admitted_total)") > first);
        assertThat(scalar("sum(gen_ai_client_token_usage_count{gen_ai_token_type=\"output\"})"))
                .isPositive();
        assertThat(scalar("count(gen_ai_client_operation_duration_seconds_bucket)"))
                .isEqualTo(15);
        assertThat(scalar("max(sluice_limit_capacity{limit=\"sim-rpm\"})")).isEqualTo(20);
        assertThat(alertFiring("SluiceProvider429Spike")).isFalse();

        Set<String> exported = new TreeSet<>();
        for (JsonNode name : query("/api/v1/label/__name__/values").get("data")) {
            exported.add(name.asText());
        }
        for (String name : rulesSeries()) {
            if (!ONLY_WHEN_SEEN.contains(name)) {
                assertThat(exported)
                        .as("the rules' series %s is in Prometheus", name)
                        .contains(name);
            }
        }

        sim.faults().during(FaultKind.RATE_LIMITED, Duration.ofSeconds(20));
        await("the 429 alert fires").atMost(Duration.ofSeconds(30)).until(() -> alertFiring("SluiceProvider429Spike"));
        assertThat(scalar("sum(sluice_provider_refusals_total{status=\"429\"})"))
                .isPositive();
    }

    // ------------------------------------------------------------------ Prometheus

    private void startPrometheus(int metricsPort) throws Exception {
        Path rules = dir.resolve("sluice-rules.yml");
        Files.writeString(rules, Files.readString(RULES).replaceAll("for: \\w+", "for: 0s"));
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "global:",
                        "  scrape_interval: 1s",
                        "  evaluation_interval: 1s",
                        "rule_files: [\"" + rules + "\"]",
                        "scrape_configs:",
                        "  - job_name: sluice",
                        "    static_configs:",
                        "      - targets: [\"127.0.0.1:" + metricsPort + "\"]",
                        ""));
        prometheusPort = MetricsIT.freePort();
        prometheus = new ProcessBuilder(
                        "/usr/bin/prometheus",
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + prometheusPort,
                        "--log.level=warn")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        await("Prometheus ready").atMost(Duration.ofSeconds(30)).until(() -> {
            try {
                return get("/-/ready").statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            }
        });
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prometheusPort + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode query(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body());
    }

    /** An instant query's single value; 0 when it returns nothing. */
    private double scalar(String promql) throws IOException, InterruptedException {
        JsonNode result = query("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
                .get("data")
                .get("result");
        return result.isEmpty() ? 0 : result.get(0).get("value").get(1).asDouble();
    }

    private boolean alertFiring(String name) throws IOException, InterruptedException {
        return scalar("count(ALERTS{alertname=\"" + name + "\",alertstate=\"firing\"})") > 0;
    }

    /** The series the shipped rules' expressions name. */
    static Set<String> rulesSeries() throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher expr = Pattern.compile("(?s)expr: (>-\\n(.*?)\\n        for|>-\\n(.*?)\\n        labels|([^\\n]+))")
                .matcher(Files.readString(RULES));
        while (expr.find()) {
            for (int g = 2; g <= 4; g++) {
                if (expr.group(g) != null) {
                    names.addAll(MetricsIT.seriesIn(expr.group(g)));
                }
            }
        }
        assertThat(names).as("series named by the rules").hasSizeGreaterThan(6);
        return names;
    }
}
