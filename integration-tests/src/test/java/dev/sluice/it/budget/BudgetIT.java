package dev.sluice.it.budget;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a budget in money raced by 8 threads of the real openai-java SDK. Each call reserves
 * its worst case before it is sent, so however the threads race, what the provider bills (its own
 * token counts at the configured prices) never passes the budget by more than one call's
 * reservation error; the calls the budget cannot cover are answered at once in OpenAI's own "out
 * of quota" shape, which the SDK does not retry; Sluice's own account of the spend matches the
 * provider's.
 */
class BudgetIT {

    /** Per million tokens: large, so a handful of calls spend the budget. */
    private static final long INPUT_PRICE = 100;

    private static final long OUTPUT_PRICE = 1_000;
    /** The app asks for at most 32 output tokens; the simulator writes 20. */
    private static final int MAX_OUTPUT = 32;

    private static final int OUTPUT = 20;
    private static final long AMOUNT_MICROS = 1_000_000;

    @Test
    void eightThreadsRacingADailyBudgetNeverOvershootItAndAreToldAtOnce() throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(100_000)
                .outputTokens(OUTPUT)
                .instant()
                .start()) {
            String yaml = "coldStartWait: 0s\n"
                    + "providers:\n"
                    + "  - name: sim-openai\n"
                    + "    kind: openai\n"
                    + "    match:\n"
                    + "      urls: [\"" + sim.baseUrl() + "/\"]\n"
                    + "    learnFromHeaders: false\n"
                    + "prices:\n"
                    + "  - model: gpt-4o-mini\n"
                    + "    input: " + INPUT_PRICE + "\n"
                    + "    output: " + OUTPUT_PRICE + "\n"
                    + "limits:\n"
                    + "  - id: daily-budget\n"
                    + "    dimension: spend\n"
                    + "    amount: 1.00\n"
                    + "    period: day\n"
                    + "    zone: Europe/Paris\n";
            JsonNode s = ForkedApp.of(BudgetRaceApp.class)
                    .args(sim.apiBaseUrl(), 8, 12, "daily-budget")
                    .withAgent(SluiceYaml.agentOptions(yaml))
                    .run()
                    .assertOk()
                    .summary();
            Counts c = sim.ledger().counts();
            long billed = c.inputTokens() * INPUT_PRICE + c.outputTokens() * OUTPUT_PRICE;
            long inputPerCall = c.admitted() == 0 ? 0 : c.inputTokens() / c.admitted();
            long worstCase = inputPerCall * INPUT_PRICE + MAX_OUTPUT * OUTPUT_PRICE;
            long reservationError = (MAX_OUTPUT - OUTPUT) * OUTPUT_PRICE;
            long completed = s.get("completed").asLong();
            long refused = s.at("/counters/local:budget_exhausted").asLong();
            JsonNode notes = s.get("notes");
            System.out.printf(
                    "budget race: %d calls, %d sent and billed %.6f USD of a 1.00 budget (worst case a call"
                            + " %.6f, reservation error %.6f), %d refused budget_exhausted, SDK attempts %d;"
                            + " Sluice's JMX: spent %s, reserved %s, left %s, settled from usage %s%n",
                    8 * 12,
                    c.admitted(),
                    billed / 1e6,
                    worstCase / 1e6,
                    reservationError / 1e6,
                    refused,
                    s.at("/counters/attempts").asLong(),
                    notes.get("jmx.Spent").asText(),
                    notes.get("jmx.Reserved").asText(),
                    notes.get("jmx.Left").asText(),
                    notes.get("jmx.SettledFromUsage").asText());

            assertThat(completed + refused)
                    .as("every call either completed or was refused")
                    .isEqualTo(96);
            assertThat(completed).isEqualTo(c.admitted());
            assertThat(refused).as("the budget ran out").isGreaterThan(0);
            assertThat(c.rejected()).as("provider 429s").isZero();
            assertThat(billed)
                    .as("billed by the provider, against the budget plus one call's reservation error")
                    .isLessThanOrEqualTo(AMOUNT_MICROS + reservationError);
            assertThat(billed)
                    .as("the budget was used, not left idle by reservations")
                    .isGreaterThan(AMOUNT_MICROS - 2 * worstCase);
            assertThat(s.at("/counters/attempts").asLong())
                    .as("SDK attempts: no retry of a refusal")
                    .isEqualTo(96);

            // Sluice's account is the provider's: every call settled from its usage, at the same prices
            assertThat(Double.parseDouble(notes.get("jmx.Spent").asText()) * 1e6)
                    .isCloseTo(billed, org.assertj.core.data.Offset.offset(1.0));
            assertThat(notes.get("jmx.Reserved").asText()).isEqualTo("0.0");
            assertThat(notes.get("jmx.SettledFromUsage").asLong()).isEqualTo(completed);
            assertThat(notes.get("jmx.ExhaustedRejections").asLong()).isEqualTo(refused);
            assertThat(notes.get("jmx.UnpricedCalls").asLong()).isZero();
            assertThat(notes.get("jmx.Period").asText()).isEqualTo("day");

            // what the application reads in the refusal
            assertThat(notes.get("error.type").asText()).isEqualTo("insufficient_quota");
            assertThat(notes.get("error.code").asText()).isEqualTo("insufficient_quota");
            assertThat(notes.get("sluice.gateway_decision").asText()).isEqualTo("budget_exhausted");
            assertThat(notes.get("sluice.limiter").asText()).isEqualTo("spend");
            assertThat(notes.get("sluice.budget.limit").asText()).isEqualTo("daily-budget");
            assertThat(notes.get("sluice.budget.currency").asText()).isEqualTo("USD");
            assertThat(Double.parseDouble(notes.get("sluice.budget.amount").asText()))
                    .isEqualTo(1.0);
            assertThat(notes.get("sluice.budget.resets_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT2[23]:00:00Z");
            assertThat(notes.get("header.x-should-retry").asText()).isEqualTo("[false]");
        }
    }
}
