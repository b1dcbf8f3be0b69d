package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.simulator.ledger.Ledger;
import dev.sluice.simulator.ledger.LedgerSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a test in another JVM does: drive and read a simulator only over HTTP. */
class AdminEndpointTest {

    @Test
    void ledgerFaultsAndResetOverHttp() {
        // The gateway does not count failed requests, so the overload leaves both slots free.
        // Its windows start on the minute: on the real clock a run across one admitted a third call.
        try (Simulator sim = Simulator.builder()
                .profile(Profile.GATEWAY)
                .instant()
                .clock(new FakeClock())
                .limit(Dimension.REQUESTS, 2, Duration.ofMinutes(1))
                .start()) {
            String admin = sim.baseUrl() + "/__sim/";
            var armed = Http.post(admin + "faults", "{\"kind\":\"overload\",\"count\":1}");
            assertThat(armed.statusCode()).isEqualTo(200);
            assertThat(Http.get(admin + "faults").body()).contains("\"overload\":\"next 1\"");
            for (int i = 0; i < 4; i++) {
                Http.post(
                        sim.apiBaseUrl() + "/chat/completions",
                        Bodies.chat(),
                        "Authorization",
                        "Bearer k",
                        "x-sim-tenant",
                        "search",
                        "x-sim-call-id",
                        "call-" + (i / 2));
            }
            LedgerSnapshot snapshot = Ledger.fromJson(Http.get(admin + "ledger").body());
            assertThat(snapshot.total().overloaded()).isEqualTo(1);
            assertThat(snapshot.total().admitted()).isEqualTo(2);
            assertThat(snapshot.total().rejected()).isEqualTo(1);
            assertThat(snapshot.byTenant().get("search").arrivals()).isEqualTo(4);
            assertThat(snapshot.attemptsPerCall()).containsEntry("call-0", 2).containsEntry("call-1", 2);
            assertThat(Ledger.query(snapshot).maxAdmittedInAnyWindow(Duration.ofMinutes(1)))
                    .isEqualTo(2);
            assertThat(Http.get(admin + "limits").body()).contains("\"name\":\"requests_per_1m\"");

            assertThat(Http.post(admin + "reset", "").statusCode()).isEqualTo(200);
            assertThat(Ledger.fromJson(
                                    Http.get(admin + "ledger?exchanges=false").body())
                            .total()
                            .arrivals())
                    .isZero();
            assertThat(Http.post(sim.apiBaseUrl() + "/chat/completions", Bodies.chat(), "Authorization", "Bearer k")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(Http.post(admin + "faults", "{\"kind\":\"bogus\"}").statusCode())
                    .isEqualTo(400);
        }
    }
}
