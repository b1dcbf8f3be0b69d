package dev.sluice.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.simulator.ledger.Exchange;
import dev.sluice.simulator.ledger.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One run's figures: what the service saw (its summary) and what the provider saw (the ledger). */
record RunFigures(String label, JsonNode app, List<Exchange> exchanges, Duration length) {

    long appTotal(String field) {
        long total = 0;
        for (JsonNode t : app.get("tenants")) {
            total += t.get(field).asLong();
        }
        return total;
    }

    long providerAttempts() {
        return exchanges.size();
    }

    long provider429s() {
        return exchanges.stream().filter(e -> e.outcome() == Outcome.REJECTED).count();
    }

    List<Exchange> admitted() {
        return exchanges.stream()
                .filter(e -> e.admittedAt() != null && e.outcome() == Outcome.ADMITTED)
                .toList();
    }

    double admittedPerMinute() {
        return admitted().size() * 60.0 / length.toSeconds();
    }

    double tokensPerMinute() {
        return admitted().stream()
                        .mapToLong(e -> e.inputTokens() + e.outputTokens())
                        .sum()
                * 60.0
                / length.toSeconds();
    }

    /** Each tenant's share of the tokens the provider admitted, in percent. */
    Map<String, Double> tenantShares(List<Tenant> tenants) {
        Map<String, Double> shares = new LinkedHashMap<>();
        long total = admitted().stream()
                .mapToLong(e -> e.inputTokens() + e.outputTokens())
                .sum();
        for (Tenant t : tenants) {
            long mine = admitted().stream()
                    .filter(e -> t.name().equals(e.tenant()))
                    .mapToLong(e -> e.inputTokens() + e.outputTokens())
                    .sum();
            shares.put(t.name(), total == 0 ? 0 : 100.0 * mine / total);
        }
        return shares;
    }

    /** Admitted and refused attempts per second since {@code start}. */
    long[][] perSecond(Instant start, int seconds) {
        long[][] series = new long[2][seconds];
        for (Exchange e : exchanges) {
            int s = (int) Duration.between(start, e.arrivedAt()).toSeconds();
            if (s < 0 || s >= seconds) {
                continue;
            }
            if (e.outcome() == Outcome.ADMITTED) {
                series[0][s]++;
            } else if (e.outcome() == Outcome.REJECTED) {
                series[1][s]++;
            }
        }
        return series;
    }
}
