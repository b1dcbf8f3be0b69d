package dev.sluice.simulator.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.sluice.simulator.Dimension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Everything the simulator saw, for tests to query: one {@link Exchange} per arrival, with
 * arrival, admission and completion times from the simulator's clock, plus the concurrency
 * high-water mark. Thread-safe; queries work on a consistent copy.
 */
public final class Ledger {
    private static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Exchange> exchanges = new ArrayList<>();
    private final List<NeighbourUse> neighbourUses = new ArrayList<>();
    private long seqBase; // sequence numbers keep growing across resets, so stale ones miss
    private int inFlight;
    private int maxConcurrency;

    public Ledger(Clock clock) {
        this.clock = clock;
    }

    /**
     * Records an arrival and how it was answered; returns its sequence number, to pass to {@link
     * #complete} when the response has ended.
     */
    public long record(Exchange draft) {
        lock.lock();
        try {
            long seq = seqBase + exchanges.size() + 1L;
            exchanges.add(withSeq(draft, seq));
            if (draft.admitted() && draft.outcome() != Outcome.RESET) {
                inFlight++;
                maxConcurrency = Math.max(maxConcurrency, inFlight);
            }
            return seq;
        } finally {
            lock.unlock();
        }
    }

    /** Marks an exchange's response as ended (sent, truncated, reset or abandoned by the client). */
    public void complete(long seq) {
        lock.lock();
        try {
            long index = seq - seqBase - 1;
            if (index < 0 || index >= exchanges.size()) {
                return; // the ledger was reset while the response was in flight
            }
            Exchange e = exchanges.get((int) index);
            if (e.completedAt() != null) {
                return;
            }
            if (e.admitted() && e.outcome() != Outcome.RESET) {
                inFlight = Math.max(0, inFlight - 1);
            }
            exchanges.set((int) index, withCompletion(e, clock.instant()));
        } finally {
            lock.unlock();
        }
    }

    /** Forgets everything recorded. Exchanges still in flight are not counted when they end. */
    public void reset() {
        lock.lock();
        try {
            seqBase += exchanges.size();
            exchanges.clear();
            neighbourUses.clear();
            inFlight = 0;
            maxConcurrency = 0;
        } finally {
            lock.unlock();
        }
    }

    /** Records what a neighbour took (see {@link NeighbourUse}). */
    public void recordNeighbour(NeighbourUse use) {
        lock.lock();
        try {
            neighbourUses.add(use);
        } finally {
            lock.unlock();
        }
    }

    /** Everything neighbours took, in the order it was booked. */
    public List<NeighbourUse> neighbourUses() {
        lock.lock();
        try {
            return List.copyOf(neighbourUses);
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the neighbour of {@code organization} took of the limits counting {@code dimension}
     * between two instants; a span reaching across either end is counted pro rata.
     */
    public long neighbourTaken(String organization, Dimension dimension, Instant from, Instant to) {
        double sum = 0;
        for (NeighbourUse u : neighbourUses()) {
            if (!u.organization().equals(organization) || u.dimension() != dimension) {
                continue;
            }
            long span = Duration.between(u.from(), u.to()).toNanos();
            Instant start = u.from().isAfter(from) ? u.from() : from;
            Instant end = u.to().isBefore(to) ? u.to() : to;
            if (!end.isAfter(start)) {
                if (span == 0 && !u.to().isBefore(from) && !u.to().isAfter(to)) {
                    sum += u.taken();
                }
                continue;
            }
            sum += span == 0
                    ? u.taken()
                    : u.taken() * (double) Duration.between(start, end).toNanos() / span;
        }
        return Math.round(sum);
    }

    /** A query over everything recorded so far. */
    public LedgerQuery query() {
        lock.lock();
        try {
            return new LedgerQuery(exchanges);
        } finally {
            lock.unlock();
        }
    }

    public List<Exchange> exchanges() {
        return query().exchanges();
    }

    public LedgerQuery where(Predicate<Exchange> filter) {
        return query().where(filter);
    }

    public LedgerQuery forApiKey(String apiKey) {
        return query().forApiKey(apiKey);
    }

    public LedgerQuery forTenant(String tenant) {
        return query().forTenant(tenant);
    }

    public Counts counts() {
        return query().counts();
    }

    public long admittedInWindow(Instant from, Instant to) {
        return query().admittedInWindow(from, to);
    }

    public int maxAdmittedInAnyWindow(Duration window) {
        return query().maxAdmittedInAnyWindow(window);
    }

    public int maxAdmittedInAnyFixedWindow(Duration window) {
        return query().maxAdmittedInAnyFixedWindow(window);
    }

    public Map<String, Integer> attemptsPerCall() {
        return query().attemptsPerCall();
    }

    public List<Exchange> rejections() {
        return query().rejections();
    }

    /** Most requests in flight at once since start or the last reset. */
    public int maxConcurrency() {
        lock.lock();
        try {
            return maxConcurrency;
        } finally {
            lock.unlock();
        }
    }

    /** Requests admitted whose responses have not ended yet. */
    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    /** Totals, per key, per tenant, attempts per call, high-water mark, and every exchange. */
    public LedgerSnapshot snapshot() {
        return snapshot(true);
    }

    /** As {@link #snapshot()}, optionally without the list of exchanges. */
    public LedgerSnapshot snapshot(boolean withExchanges) {
        List<Exchange> copy;
        int max;
        lock.lock();
        try {
            copy = List.copyOf(exchanges);
            max = maxConcurrency;
        } finally {
            lock.unlock();
        }
        LedgerQuery all = new LedgerQuery(copy);
        Map<String, List<Exchange>> perKey = new LinkedHashMap<>();
        Map<String, List<Exchange>> perTenant = new LinkedHashMap<>();
        for (Exchange e : copy) {
            perKey.computeIfAbsent(e.apiKey(), k -> new ArrayList<>()).add(e);
            if (e.tenant() != null) {
                perTenant.computeIfAbsent(e.tenant(), k -> new ArrayList<>()).add(e);
            }
        }
        Map<String, Counts> byKey = new LinkedHashMap<>();
        perKey.forEach((k, v) -> byKey.put(k, Counts.of(v)));
        Map<String, Counts> byTenant = new LinkedHashMap<>();
        perTenant.forEach((k, v) -> byTenant.put(k, Counts.of(v)));
        return new LedgerSnapshot(
                all.counts(), byKey, byTenant, all.attemptsPerCall(), max, withExchanges ? copy : List.of());
    }

    /** The snapshot as JSON (what {@code GET /__sim/ledger} answers). */
    public String toJson() {
        return toJson(snapshot());
    }

    public static String toJson(LedgerSnapshot snapshot) {
        try {
            return JSON.writeValueAsString(snapshot);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a snapshot written by {@link #toJson} (for a test querying another process). */
    public static LedgerSnapshot fromJson(String json) {
        try {
            return JSON.readValue(json, LedgerSnapshot.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a ledger snapshot", e);
        }
    }

    /** A query over a snapshot read from another process. */
    public static LedgerQuery query(LedgerSnapshot snapshot) {
        return new LedgerQuery(snapshot.exchanges());
    }

    private static Exchange withSeq(Exchange e, long seq) {
        return new Exchange(
                seq,
                e.arrivedAt(),
                e.admittedAt(),
                e.completedAt(),
                e.apiKey(),
                e.organization(),
                e.tenant(),
                e.callId(),
                e.model(),
                e.path(),
                e.stream(),
                e.status(),
                e.outcome(),
                e.refusedBy(),
                e.inputTokens(),
                e.outputTokens(),
                e.fault());
    }

    private static Exchange withCompletion(Exchange e, Instant at) {
        return new Exchange(
                e.seq(),
                e.arrivedAt(),
                e.admittedAt(),
                at,
                e.apiKey(),
                e.organization(),
                e.tenant(),
                e.callId(),
                e.model(),
                e.path(),
                e.stream(),
                e.status(),
                e.outcome(),
                e.refusedBy(),
                e.inputTokens(),
                e.outputTokens(),
                e.fault());
    }
}
