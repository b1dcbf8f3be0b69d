package dev.sluice.simulator.ledger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Questions a test asks of what the simulator saw, over a fixed list of exchanges (a whole ledger
 * or a slice of it such as one API key). Immutable.
 */
public class LedgerQuery {
    private final List<Exchange> exchanges;

    LedgerQuery(List<Exchange> exchanges) {
        this.exchanges = List.copyOf(exchanges);
    }

    /** Every exchange in arrival order. */
    public List<Exchange> exchanges() {
        return exchanges;
    }

    /** The exchanges matching {@code filter}, as a query of their own. */
    public LedgerQuery where(Predicate<Exchange> filter) {
        return new LedgerQuery(exchanges.stream().filter(filter).collect(Collectors.toList()));
    }

    public LedgerQuery forApiKey(String apiKey) {
        return where(e -> apiKey.equals(e.apiKey()));
    }

    public LedgerQuery forTenant(String tenant) {
        return where(e -> tenant.equals(e.tenant()));
    }

    public LedgerQuery forOrganization(String organization) {
        return where(e -> organization.equals(e.organization()));
    }

    public Counts counts() {
        return Counts.of(exchanges);
    }

    public long arrivals() {
        return exchanges.size();
    }

    public long admitted() {
        return exchanges.stream().filter(Exchange::admitted).count();
    }

    /** Refusals by a limit (429 from the limiter). */
    public List<Exchange> rejections() {
        return exchanges.stream().filter(e -> e.outcome() == Outcome.REJECTED).collect(Collectors.toList());
    }

    /** Admissions with {@code from <= admittedAt < to}. */
    public long admittedInWindow(Instant from, Instant to) {
        return exchanges.stream()
                .filter(e -> e.admitted()
                        && !e.admittedAt().isBefore(from)
                        && e.admittedAt().isBefore(to))
                .count();
    }

    /** The most admissions in any sliding window {@code [t, t + window)}. */
    public int maxAdmittedInAnyWindow(Duration window) {
        List<Instant> times = admissionTimes();
        int best = 0;
        int start = 0;
        for (int end = 0; end < times.size(); end++) {
            Instant limit = times.get(end).minus(window);
            while (!times.get(start).isAfter(limit)) {
                start++;
            }
            best = Math.max(best, end - start + 1);
        }
        return best;
    }

    /** The most admissions in one fixed window aligned to epoch multiples of {@code window}. */
    public int maxAdmittedInAnyFixedWindow(Duration window) {
        Map<Long, Integer> perWindow = new LinkedHashMap<>();
        long size = window.toNanos();
        for (Instant t : admissionTimes()) {
            long nanos = t.getEpochSecond() * 1_000_000_000L + t.getNano();
            perWindow.merge(Math.floorDiv(nanos, size), 1, Integer::sum);
        }
        return perWindow.values().stream().max(Integer::compare).orElse(0);
    }

    /** Most admitted tokens (input + output) in any sliding window. */
    public long maxTokensInAnyWindow(Duration window) {
        List<Exchange> admitted = exchanges.stream()
                .filter(Exchange::admitted)
                .sorted((a, b) -> a.admittedAt().compareTo(b.admittedAt()))
                .collect(Collectors.toList());
        long best = 0;
        long sum = 0;
        int start = 0;
        for (Exchange e : admitted) {
            sum += e.inputTokens() + e.outputTokens();
            Instant limit = e.admittedAt().minus(window);
            while (!admitted.get(start).admittedAt().isAfter(limit)) {
                sum -= admitted.get(start).inputTokens() + admitted.get(start).outputTokens();
                start++;
            }
            best = Math.max(best, sum);
        }
        return best;
    }

    /** Arrivals per logical call id, in first-seen order; requests without an id are left out. */
    public Map<String, Integer> attemptsPerCall() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (Exchange e : exchanges) {
            if (e.callId() != null) {
                out.merge(e.callId(), 1, Integer::sum);
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** Arrival instants in order: to measure spacing between attempts. */
    public List<Instant> arrivalTimes() {
        List<Instant> out = new ArrayList<>();
        exchanges.forEach(e -> out.add(e.arrivedAt()));
        return out;
    }

    /** Admission instants in order. */
    public List<Instant> admissionTimes() {
        return exchanges.stream()
                .filter(Exchange::admitted)
                .map(Exchange::admittedAt)
                .sorted()
                .collect(Collectors.toList());
    }
}
