package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.apps.AnthropicApp;
import dev.sluice.it.apps.GoogleGenAiApp;
import dev.sluice.it.apps.LangChain4jApp;
import dev.sluice.it.apps.OpenAiAsyncApp;
import dev.sluice.it.apps.OpenAiChatApp;
import dev.sluice.it.apps.OpenAiStreamingApp;
import dev.sluice.it.apps.Outcomes;
import dev.sluice.it.harness.Figures;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.it.harness.Table;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real SDKs at their default settings, in forked JVMs, offering about three times a
 * simulator's request limit, once without and once with the agent. With the agent, provider 429s
 * are at most 1 % of the requests that reached the simulator and every logical call completes or
 * gets a local rejection. Without it (with {@code -Dsluice.figures=true}, {@link Figures}), the
 * figures are printed (not asserted) beside.
 */
class SdkScenariosIT {

    /** The provider limit every scenario runs against. */
    static final int REQUESTS_PER_SECOND = 10;
    /**
     * Callers per scenario: a call takes about 165 ms at the simulator (100 ms to the first byte,
     * 32 tokens at 2 ms) and a little more in the client, so 6 closed-loop callers offer about 30
     * requests a second, three times the limit, even on a busy machine (the simulator's latency,
     * not CPU, sets the pace; openai-java's async client runs at most 5 calls per host). 102 calls:
     * one 429 would be under 1 %.
     */
    static final int CALLERS = 6;

    static final int CALLS_PER_CALLER = 17;

    private static final Table TABLE = new Table(
            "scenario",
            "agent",
            "calls",
            "completed",
            "local rejections",
            "429s reaching the app",
            "other failures",
            "requests at the simulator",
            "provider 429s",
            "429 % of requests",
            "seconds");

    enum Sdk {
        OPENAI_SYNC("openai-java sync", Profile.OPENAI, "openai", OpenAiChatApp.class, sim ->
                new Object[] {sim.apiBaseUrl(), CALLERS, CALLS_PER_CALLER}),
        OPENAI_ASYNC("openai-java async", Profile.OPENAI, "openai", OpenAiAsyncApp.class, sim ->
                new Object[] {sim.apiBaseUrl(), CALLERS, CALLERS * CALLS_PER_CALLER}),
        OPENAI_STREAM("openai-java streaming", Profile.OPENAI, "openai", OpenAiStreamingApp.class, sim ->
                new Object[] {sim.apiBaseUrl(), CALLERS, CALLS_PER_CALLER}),
        ANTHROPIC_SYNC("anthropic-java sync", Profile.ANTHROPIC, "anthropic", AnthropicApp.class, sim ->
                new Object[] {sim.apiBaseUrl(), "sync", CALLERS, CALLS_PER_CALLER}),
        ANTHROPIC_STREAM("anthropic-java streaming", Profile.ANTHROPIC, "anthropic", AnthropicApp.class, sim ->
                new Object[] {sim.apiBaseUrl(), "stream", CALLERS, CALLS_PER_CALLER}),
        LANGCHAIN4J("langchain4j OpenAiChatModel (JDK client)", Profile.OPENAI, "openai", LangChain4jApp.class, sim ->
                new Object[] {sim.apiBaseUrl(), CALLERS, CALLS_PER_CALLER}),
        GOOGLE_GENAI("google-genai", Profile.GEMINI, "gemini", GoogleGenAiApp.class, sim ->
                new Object[] {sim.apiBaseUrl(), CALLERS, CALLS_PER_CALLER});

        final String label;
        final Profile profile;
        final String kind;
        final Class<?> app;
        final Function<Simulator, Object[]> args;

        Sdk(String label, Profile profile, String kind, Class<?> app, Function<Simulator, Object[]> args) {
            this.label = label;
            this.profile = profile;
            this.kind = kind;
            this.app = app;
            this.args = args;
        }
    }

    /** What one run did, from the application's summary and the simulator's ledger. */
    record Run(
            long calls,
            long completed,
            long local,
            long provider429AtApp,
            long otherFailures,
            Counts sim,
            double seconds,
            JsonNode summary) {

        double provider429Percent() {
            return sim.arrivals() == 0 ? 0 : 100.0 * sim.rejected() / sim.arrivals();
        }
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void theAgentPacesARealSdkUnderTheProviderLimit(Sdk sdk) throws Exception {
        if (Figures.enabled()) {
            record(sdk, "without", run(sdk, false));
        }
        Run with = run(sdk, true);
        record(sdk, "with", with);
        System.out.printf("%s%n%s%n", sdk.label, TABLE);

        assertThat(with.sim.rejected())
                .as("provider 429s with the agent, of %d requests", with.sim.arrivals())
                .isLessThanOrEqualTo(with.sim.arrivals() / 100);
        assertThat(with.completed + with.local)
                .as("completed or rejected locally: %s", with.summary)
                .isEqualTo(with.calls);
        assertThat(with.calls).isEqualTo((long) CALLERS * CALLS_PER_CALLER);
        assertThat(with.completed).as("calls completed with the agent").isPositive();
    }

    private static Run run(Sdk sdk, boolean agent) throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(sdk.profile)
                .limit(Dimension.REQUESTS, REQUESTS_PER_SECOND, Duration.ofSeconds(1))
                .firstByteLatency(Duration.ofMillis(100))
                .latencyPerToken(Duration.ofMillis(2))
                .start()) {
            ForkedApp app = ForkedApp.of(sdk.app).args(sdk.args.apply(sim)).timeout(Duration.ofMinutes(2));
            if (agent) {
                app.withAgent(SluiceYaml.agentOptions(
                        SluiceYaml.mirroredProvider(sdk.kind, sim.baseUrl(), REQUESTS_PER_SECOND, "1s")));
            }
            ForkedApp.Result r = app.run().assertOk();
            if (agent) {
                assertThat(r.startLine()).as(r.stderr).contains("mode=enforce").contains("sluice-it-");
            }
            JsonNode s = r.summary();
            long local = 0;
            long provider429 = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = s.get("counters").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().startsWith(Outcomes.LOCAL)) {
                    local += e.getValue().asLong();
                } else if (e.getKey().equals(Outcomes.PROVIDER_429)) {
                    provider429 += e.getValue().asLong();
                }
            }
            long calls = s.get("calls").asLong();
            long completed = s.get("completed").asLong();
            return new Run(
                    calls,
                    completed,
                    local,
                    provider429,
                    calls - completed - local - provider429,
                    sim.ledger().counts(),
                    s.get("elapsedMillis").asLong() / 1000.0,
                    s);
        }
    }

    private static void record(Sdk sdk, String agent, Run r) {
        TABLE.row(
                sdk.label,
                agent,
                r.calls,
                r.completed,
                r.local,
                r.provider429AtApp,
                r.otherFailures,
                r.sim.arrivals(),
                r.sim.rejected(),
                String.format("%.1f", r.provider429Percent()),
                String.format("%.1f", r.seconds));
    }

    @AfterAll
    static void printTable() {
        if (!TABLE.isEmpty()) {
            System.out.printf(
                    "%nReal SDKs at their defaults, %d callers offering ~3x a limit of %d requests/s"
                            + " (figures for docs/scenarios.md)%n%s%n",
                    CALLERS, REQUESTS_PER_SECOND, TABLE);
        }
    }
}
