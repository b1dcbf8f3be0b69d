package dev.sluice.core.jmx;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shipped Prometheus rules and the Governor bean's notifications alert on the same conditions
 * with the same thresholds: each rule's expression and {@code for:} are rebuilt here from
 * {@link AlertCondition} and must be what the rules file says, so a threshold changed on one side
 * only fails the build.
 */
class AlertConditionTest {

    static final Path RULES = Paths.get(System.getProperty("sluice.ops", "../ops"), "prometheus/sluice-rules.yml");

    /** Each condition's rule as the file writes it, its figures left to the condition. */
    private static String expected(AlertCondition c) {
        switch (c) {
            case PROVIDER_429_SPIKE:
                return "sum by (provider) (rate(sluice_provider_responses_total{status=\"429\"}[" + range(c.window)
                        + "])) > " + number(c.threshold);
            case QUEUE_NEARLY_FULL:
                return "sum by (class) (sluice_class_waiting) > " + number(c.threshold)
                        + " * sum by (class) (sluice_class_max_queue_depth)";
            case QUEUE_GROWING:
                return "sum by (class) (sluice_class_waiting) > " + number(c.threshold)
                        + " and deriv(sum by (class) (sluice_class_waiting)[" + range(c.window) + ":"
                        + range(AlertCondition.CHECK_INTERVAL) + "]) > 0";
            case TOKEN_PRESSURE:
                return "max by (limit, provider) (sluice_limit_utilisation{dimension=~\".*tokens\"}) > "
                        + number(c.threshold);
            case UNGOVERNED_CALLS:
                return "sum by (host, client) (increase(sluice_ungoverned_connections_total[" + range(c.window)
                        + "])) > " + number(c.threshold);
            case FAULTS:
                return "sum(increase(sluice_faults_total[" + range(c.window) + "])) > " + number(c.threshold);
            default:
                throw new IllegalStateException("no rule written for " + c);
        }
    }

    @Test
    void everyConditionIsARuleOfTheShippedFileWithTheSameThresholds() throws IOException {
        Map<String, Rule> rules = rules();
        for (AlertCondition c : AlertCondition.values()) {
            Rule rule = rules.get(c.ruleName);
            assertThat(rule).as("rule %s in %s", c.ruleName, RULES).isNotNull();
            assertThat(rule.expr).as("%s expr", c.ruleName).isEqualTo(expected(c));
            assertThat(rule.hold).as("%s for", c.ruleName).isEqualTo(c.hold.isZero() ? null : range(c.hold));
            assertThat(rule.severity).as("%s severity", c.ruleName).isEqualTo(c.severity);
        }
        assertThat(rules.keySet())
                .as("the rules beside the conditions are the budgets', which the Budget beans notify")
                .hasSize(AlertCondition.values().length + 2)
                .contains("SluiceBudgetWarning", "SluiceBudgetExhausted");
    }

    @Test
    void theRulesAreReadAsWritten() {
        Map<String, Rule> rules = parse(List.of(
                "groups:",
                "  - name: sluice",
                "    rules:",
                "      - alert: A",
                "        expr: x > 1",
                "        for: 2m",
                "        labels:",
                "          severity: warning",
                "      - alert: B",
                "        expr: >-",
                "          y > 2",
                "          and z",
                "        labels:",
                "          severity: info"));
        assertThat(rules.get("A").expr).isEqualTo("x > 1");
        assertThat(rules.get("A").hold).isEqualTo("2m");
        assertThat(rules.get("B").expr).isEqualTo("y > 2 and z");
        assertThat(rules.get("B").hold).isNull();
        assertThat(rules.get("B").severity).isEqualTo("info");
    }

    /** {@code 1m}, {@code 15s}: how a rule writes a duration. */
    private static String range(Duration d) {
        return d.getSeconds() % 60 == 0 ? d.toMinutes() + "m" : d.getSeconds() + "s";
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** One rule: its expression (a folded block joined by spaces), its {@code for:} and severity. */
    static final class Rule {
        String expr;
        String hold;
        String severity;
    }

    static Map<String, Rule> rules() throws IOException {
        return parse(Files.readAllLines(RULES, StandardCharsets.UTF_8));
    }

    /** The few shapes the rules file uses: {@code key: value} and folded {@code key: >-} blocks. */
    static Map<String, Rule> parse(List<String> lines) {
        Map<String, Rule> rules = new LinkedHashMap<>();
        Rule rule = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String trimmed = line.trim();
            if (trimmed.startsWith("- alert: ")) {
                rule = new Rule();
                rules.put(trimmed.substring(9).trim(), rule);
            } else if (rule != null && trimmed.startsWith("expr: ")) {
                String value = trimmed.substring(6).trim();
                if (value.equals(">-")) {
                    int indent = indent(line);
                    StringBuilder folded = new StringBuilder();
                    while (i + 1 < lines.size() && indent(lines.get(i + 1)) > indent) {
                        folded.append(folded.length() == 0 ? "" : " ")
                                .append(lines.get(++i).trim());
                    }
                    value = folded.toString();
                }
                rule.expr = value;
            } else if (rule != null && trimmed.startsWith("for: ")) {
                rule.hold = trimmed.substring(5).trim();
            } else if (rule != null && trimmed.startsWith("severity: ")) {
                rule.severity = trimmed.substring(10).trim();
            }
        }
        return rules;
    }

    private static int indent(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return line.trim().isEmpty() ? 0 : n; // a blank line ends a folded block: the file has none inside one
    }
}
