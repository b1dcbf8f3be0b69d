package dev.sluice.it.budget;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.JsonValue;
import com.openai.errors.RateLimitException;
import dev.sluice.it.apps.CountingHttpClient;
import dev.sluice.it.apps.Load;
import dev.sluice.it.apps.OpenAiChatApp;
import dev.sluice.it.harness.AppReport;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A service racing a small budget: {@code threads} callers of the real openai-java SDK at its
 * default settings (2 retries) each make {@code calls} chat completions. Beneath the SDK's retry
 * loop a transport counts its attempts, so the test can tell the SDK did not retry a refusal.
 * The first budget refusal is read as an application would (its error body); at the end the
 * budget's JMX attributes are read from the platform MBean server.
 *
 * <p>Arguments: baseUrl threads calls budgetId
 */
public final class BudgetRaceApp {

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        int threads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        String budgetId = args[3];
        CountingHttpClient counting = new CountingHttpClient();
        OpenAIClient client = new OpenAIClientImpl(ClientOptions.builder()
                .httpClient(counting)
                .baseUrl(baseUrl)
                .apiKey("sk-test-budget")
                .build());
        AtomicReference<RateLimitException> firstRefusal = new AtomicReference<>();
        AppReport report = Load.closedLoop(
                threads,
                calls,
                (thread, i) -> {
                    try {
                        client.chat().completions().create(OpenAiChatApp.params());
                    } catch (RateLimitException e) {
                        firstRefusal.compareAndSet(null, e);
                        throw e;
                    }
                },
                OpenAiChatApp::body);
        RateLimitException refusal = firstRefusal.get();
        if (refusal != null) {
            Optional<Map<String, JsonValue>> error = refusal.body().asObject();
            error.orElseThrow().forEach((k, v) -> {
                if (!k.equals("sluice")) {
                    report.note("error." + k, text(v));
                }
            });
            Optional<Map<String, JsonValue>> sluice =
                    error.orElseThrow().get("sluice").asObject();
            sluice.orElseThrow().forEach((k, v) -> report.note("sluice." + k, text(v)));
            Optional<Map<String, JsonValue>> budget =
                    sluice.orElseThrow().get("budget").asObject();
            budget.orElseThrow().forEach((k, v) -> report.note("sluice.budget." + k, text(v)));
            report.note(
                    "header.x-should-retry",
                    refusal.headers().values("x-should-retry").toString());
        }
        report.count("attempts", counting.attempts());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName budgetBean = new ObjectName("dev.sluice:type=Budget,name=" + budgetId);
        // the agent registers its beans about two seconds after start: a quick app may end before
        long until = System.nanoTime() + 15_000_000_000L;
        while (!server.isRegistered(budgetBean) && System.nanoTime() - until < 0) {
            Thread.sleep(50);
        }
        for (String attribute : new String[] {
            "Amount",
            "Spent",
            "Reserved",
            "Left",
            "Currency",
            "Period",
            "ResetsAt",
            "ExhaustedRejections",
            "SettledFromUsage",
            "SettledFromCount",
            "SettledAsReserved"
        }) {
            report.note("jmx." + attribute, String.valueOf(server.getAttribute(budgetBean, attribute)));
        }
        report.note(
                "jmx.UnpricedCalls",
                String.valueOf(server.getAttribute(new ObjectName("dev.sluice:type=Governor"), "UnpricedCalls")));
        Load.finish(report);
    }

    private static String text(JsonValue v) {
        Optional<String> s = v.asString();
        Optional<Number> n = v.asNumber();
        return s.orElseGet(() -> n.map(String::valueOf).orElseGet(v::toString));
    }
}
