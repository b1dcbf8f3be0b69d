package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.providers.LoopbackHosts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad advice: a fault anywhere behind a hook never changes what the application sees.
 *
 * <p>{@link BadAdviceApp} runs each hooked entry point (JDK HttpClient send and sendAsync, OkHttp
 * execute, enqueue and cancel, openai-java over OkHttp) against a deterministic provider, once
 * without the agent (the outcomes to match) and then with the real agent while
 * {@link FaultyGovernance} injects one fault at a time: in the governance behind the bridge
 * (throws, returns null, returns garbage, returns a failure no library throws, its fault report
 * or its {@code ownsRetries} throws), in the transport it is handed (each method throws once,
 * mid-call, while the real governor holds a permit), and on the bridge's side (the hook throws on
 * entry; in a separate JVM, the hook factory throws for every class). For every call where the
 * fault fired: the same status and body (Sluice's {@code sluice} explanation in a refusal aside),
 * or the same exception type; at most one attempt for a call the provider answers at once; the
 * fault counted ({@code Bridge.hookFaults()} or the Governor MBean's {@code Faults}); nothing left
 * in flight or waiting in the governor.
 */
class BadAdviceIT {

    private static final String HOST = "api.openai.com";
    private static Map<String, Row> baseline;

    /** One call of the app: {@code ROW fault op kind outcome attempts hookFaults sluiceFaults fired held millis}. */
    static final class Row {
        final String fault;
        final String op;
        final String kind;
        final String outcome;
        final int attempts;
        final long hookFaults;
        final long sluiceFaults;
        final int fired;
        final String held;
        final long millis;

        Row(String line) {
            String[] f = line.split("\t");
            fault = f[1];
            op = f[2];
            kind = f[3];
            outcome = f[4];
            attempts = Integer.parseInt(f[5]);
            hookFaults = Long.parseLong(f[6]);
            sluiceFaults = Long.parseLong(f[7]);
            fired = Integer.parseInt(f[8]);
            held = f[9];
            millis = Long.parseLong(f[10]);
        }

        String call() {
            return op + "/" + kind;
        }

        @Override
        public String toString() {
            return fault + " " + call() + ": " + outcome + " (attempts " + attempts + ", hook faults " + hookFaults
                    + ", sluice faults " + sluiceFaults + ", fired " + fired + ", held " + held + ", " + millis
                    + " ms)";
        }
    }

    private static ForkedApp app(String mode) {
        return ForkedApp.of(BadAdviceApp.class)
                .args(mode)
                .timeout(Duration.ofMinutes(3))
                .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST));
    }

    private static List<Row> rows(ForkedApp.Result r) {
        assertThat(r.stdout).as("the app ran to its end; stderr:%n%s", r.stderr).contains("DONE");
        List<Row> rows = new ArrayList<>();
        for (String line : r.stdout.split("\n")) {
            if (line.startsWith("ROW\t")) {
                rows.add(new Row(line));
            }
        }
        return rows;
    }

    @BeforeAll
    static void withoutTheAgent() throws Exception {
        baseline = new LinkedHashMap<>();
        for (Row row : rows(app("baseline").run().assertOk())) {
            baseline.put(row.call(), row);
        }
        assertThat(baseline).hasSize(19);
        // the provider answers each call at once; only a refused connection never reaches it
        baseline.values()
                .forEach(row -> assertThat(row.attempts).as("%s", row).isEqualTo(row.kind.equals("REFUSED") ? 0 : 1));
        assertThat(baseline.get("JDK_SEND/OK").outcome).contains("hello from the fixed provider");
        assertThat(baseline.get("JDK_SEND/REFUSED").outcome).contains("java.net.ConnectException");
        assertThat(baseline.get("OKHTTP_CANCEL/SLOW").outcome).startsWith("onFailure java.io.IOException");
    }

    @Test
    void everyFaultBehindEveryHookLeavesTheApplicationsOutcomeAsWithoutTheAgent() throws Exception {
        ForkedApp.Result r =
                app("matrix").withAgent("retry.baseBackoff=1ms").run().assertOk();
        List<Row> rows = rows(r);
        Set<String> firedFaults = new TreeSet<>();
        Set<String> allFaults = new TreeSet<>();
        Set<String> counted = new TreeSet<>();
        SoftAssertions soft = new SoftAssertions();
        for (Row row : rows) {
            allFaults.add(row.fault);
            Row expected = baseline.get(row.call());
            soft.assertThat(row.outcome).as("outcome of %s", row).isEqualTo(expected.outcome);
            soft.assertThat(row.held).as("in flight/waiting after %s", row).isEqualTo("0/0");
            if (row.kind.equals("OK") || row.kind.equals("BAD")) {
                soft.assertThat(row.attempts)
                        .as("attempts of %s (never sent twice)", row)
                        .isEqualTo(1);
            }
            if (row.fault.equals("none")) {
                soft.assertThat(row.hookFaults + row.sluiceFaults)
                        .as("faults counted without a fault: %s", row)
                        .isZero();
            } else if (row.fired > 0) {
                firedFaults.add(row.fault);
                if (row.hookFaults + row.sluiceFaults > 0) {
                    counted.add(row.fault);
                } else {
                    soft.fail("fault not counted: %s", row);
                }
            }
        }
        allFaults.remove("none");
        soft.assertThat(firedFaults)
                .as("faults that fired in at least one call")
                .isEqualTo(allFaults);
        System.out.printf(
                "bad advice: %d calls, %d faults fired, counted: %s%n", rows.size(), firedFaults.size(), counted);
        soft.assertAll();
    }

    @Test
    void aHookFactoryThatThrowsLetsEveryCallThroughAndIsCounted() throws Exception {
        ForkedApp.Result r =
                app("factory").withAgent("retry.baseBackoff=1ms").run().assertOk();
        List<Row> rows = rows(r);
        assertThat(rows).hasSize(baseline.size());
        SoftAssertions soft = new SoftAssertions();
        long counted = 0;
        for (Row row : rows) {
            soft.assertThat(row.outcome).as("outcome of %s", row).isEqualTo(baseline.get(row.call()).outcome);
            soft.assertThat(row.held).as("in flight/waiting after %s", row).isEqualTo("0/0");
            counted += row.hookFaults;
        }
        // once per hooked class: HttpClientFacade, OkHttp's RealCall and openai-java's RetryingHttpClient
        soft.assertThat(counted).as("hook-create faults counted").isGreaterThanOrEqualTo(2);
        soft.assertThat(r.stdout).contains("FACTORY_CALLS ");
        soft.assertAll();
    }
}
