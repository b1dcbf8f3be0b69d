package dev.sluice.it.budget;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A budget in money raced by 8 threads of the real openai-java SDK. Each call reserves
 * its worst case before it is sent, so however the threads race, what the provider bills (its own
 * token counts at the configured prices) never passes the budget by more than one call's
 * reservation error; the calls the budget cannot cover, even once the calls in flight settle, are
 * answered in OpenAI's own "out of quota" shape, which the SDK does not retry; Sluice's own account
 * of the spend matches the provider's.
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
    void eightThreadsRacingADailyBudgetNeverOvershootItAndAreToldWhyInOpenAisShape() throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(100_000)
                .outputTokens(OUTPUT)
                .instant()
                .start()) {
            Race r = race(sim, "1.00", INPUT_PRICE, OUTPUT_PRICE);
            long worstCase = r.worstCase(INPUT_PRICE, OUTPUT_PRICE);
            long reservationError = (MAX_OUTPUT - OUTPUT) * OUTPUT_PRICE;
            assertThat(r.billed)
                    .as("billed by the provider, against the budget plus one call's reservation error")
                    .isLessThanOrEqualTo(AMOUNT_MICROS + reservationError);
            assertThat(r.billed)
                    .as("the budget was used, not left idle by reservations")
                    .isGreaterThan(AMOUNT_MICROS - 2 * worstCase);
            JsonNode notes = r.summary.get("notes");

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

    /**
     * A budget of a few dozen calls raced by 8 threads whose calls take a while and cost a sixth of
     * their worst case (the app allows 32 output tokens, the model writes 5). When the budget
     * runs short, the calls in flight still hold their worst cases, most of which comes back when
     * they settle. A call that such settlements could make room for waits for them in its class
     * queue rather than being refused at once, so the budget is spent down to less than one call's
     * worst case, not left held by reservations when the last calls are refused.
     */
    @Test
    void eightThreadsRacingASmallBudgetSpendItAllWhileCallsAreInFlight() throws Exception {
        long inputPrice = 1; // per million tokens: a call costs about 0.00027 USD, its worst case 0.0016
        long outputPrice = 50;
        int written = 5;
        long amount = 20_000; // 0.02 USD
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(100_000)
                .outputTokens(written)
                .firstByteLatency(Duration.ofMillis(150))
                .latencyPerToken(Duration.ofMillis(5))
                .start()) {
            Race r = race(sim, "0.02", inputPrice, outputPrice);
            long worstCase = r.worstCase(inputPrice, outputPrice);
            long reservationError = (MAX_OUTPUT - written) * outputPrice;
            System.out.printf(
                    "small budget race: %.1f %% of the 0.02 USD budget billed, %d of %d calls sent; what is"
                            + " left (%.6f USD) against one call's worst case (%.6f USD)%n",
                    100.0 * r.billed / amount, r.sent, 8 * 12, (amount - r.billed) / 1e6, worstCase / 1e6);
            assertThat(r.billed).isLessThanOrEqualTo(amount + reservationError);
            assertThat(r.billed)
                    .as("spent down to less than one call's worst case: no call refused while settlements"
                            + " in flight could still make room for it")
                    .isGreaterThan(amount - worstCase);
        }
    }

    /** What one race showed: the provider's bill at the configured prices, and the app's summary. */
    private record Race(long billed, long sent, long inputPerCall, JsonNode summary) {
        long worstCase(long inputPrice, long outputPrice) {
            return inputPerCall * inputPrice + MAX_OUTPUT * outputPrice;
        }
    }

    /**
     * 8 threads of 12 openai-java calls against a daily budget of {@code amount} USD, at these
     * prices per million tokens; checks what every race must show and prints its figures.
     */
    private static Race race(Simulator sim, String amount, long inputPrice, long outputPrice) throws Exception {
        String yaml = "coldStartWait: 0s\n"
                + "providers:\n"
                + "  - name: sim-openai\n"
                + "    kind: openai\n"
                + "    match:\n"
                + "      urls: [\"" + sim.baseUrl() + "/\"]\n"
                + "    learnFromHeaders: false\n"
                + "prices:\n"
                + "  - model: gpt-4o-mini\n"
                + "    input: " + inputPrice + "\n"
                + "    output: " + outputPrice + "\n"
                + "limits:\n"
                + "  - id: daily-budget\n"
                + "    dimension: spend\n"
                + "    amount: " + amount + "\n"
                + "    period: day\n"
                + "    zone: Europe/Paris\n";
        JsonNode s = ForkedApp.of(BudgetRaceApp.class)
                .args(sim.apiBaseUrl(), 8, 12, "daily-budget")
                .withAgent(SluiceYaml.agentOptions(yaml))
                .run()
                .assertOk()
                .summary();
        Counts c = sim.ledger().counts();
        long billed = c.inputTokens() * inputPrice + c.outputTokens() * outputPrice;
        long inputPerCall = c.admitted() == 0 ? 0 : c.inputTokens() / c.admitted();
        Race race = new Race(billed, c.admitted(), inputPerCall, s);
        long completed = s.get("completed").asLong();
        long refused = s.at("/counters/local:budget_exhausted").asLong();
        JsonNode notes = s.get("notes");
        System.out.printf(
                "budget race: %d calls, %d sent and billed %.6f USD of a %s budget (worst case a call"
                        + " %.6f, reservation error %.6f), %d refused budget_exhausted, SDK attempts %d;"
                        + " Sluice's JMX: spent %s, reserved %s, left %s, settled from usage %s%n",
                8 * 12,
                c.admitted(),
                billed / 1e6,
                amount,
                race.worstCase(inputPrice, outputPrice) / 1e6,
                (MAX_OUTPUT - OUTPUT) * outputPrice / 1e6,
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
        return race;
    }
}
