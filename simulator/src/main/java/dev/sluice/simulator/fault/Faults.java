package dev.sluice.simulator.fault;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runtime fault switches: each kind can be armed for the next N requests that reach its stage, for
 * a span of time, or until cleared. A request can also ask for faults itself with the {@code
 * x-sim-force} header. Thread-safe: a counter is consumed by exactly one request.
 */
public final class Faults {
    private final Clock clock;
    private final Map<FaultKind, AtomicInteger> remaining = new EnumMap<>(FaultKind.class);
    private final Map<FaultKind, AtomicReference<Instant>> until = new EnumMap<>(FaultKind.class);
    private volatile Duration slowFirstByteDelay = Duration.ofSeconds(3);

    public Faults(Clock clock) {
        this.clock = clock;
        for (FaultKind kind : FaultKind.values()) {
            remaining.put(kind, new AtomicInteger());
            until.put(kind, new AtomicReference<>(Instant.MIN));
        }
    }

    /** Arms {@code kind} for the next {@code count} requests that reach its stage (adds up). */
    public Faults next(FaultKind kind, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        remaining.get(kind).addAndGet(count);
        return this;
    }

    /** Arms {@code kind} for every request during {@code span} from now. */
    public Faults during(FaultKind kind, Duration span) {
        until.get(kind).set(clock.instant().plus(span));
        return this;
    }

    /** Arms {@code kind} for every request until cleared. */
    public Faults always(FaultKind kind) {
        until.get(kind).set(Instant.MAX);
        return this;
    }

    /** Disarms one kind. */
    public Faults clear(FaultKind kind) {
        remaining.get(kind).set(0);
        until.get(kind).set(Instant.MIN);
        return this;
    }

    /** Disarms everything. */
    public Faults clear() {
        for (FaultKind kind : FaultKind.values()) {
            clear(kind);
        }
        return this;
    }

    /** How late the first byte comes under {@link FaultKind#SLOW_FIRST_BYTE} (default 3 s). */
    public Faults slowFirstByteDelay(Duration delay) {
        this.slowFirstByteDelay = delay;
        return this;
    }

    public Duration slowFirstByteDelay() {
        return slowFirstByteDelay;
    }

    /** Shorthand: the next {@code count} requests answer overloaded. */
    public Faults overloadNext(int count) {
        return next(FaultKind.OVERLOAD, count);
    }

    /** Shorthand: every request answers overloaded for {@code span}. */
    public Faults overloadFor(Duration span) {
        return during(FaultKind.OVERLOAD, span);
    }

    /**
     * Whether {@code kind} applies to the request now at its stage; consumes one count if that is
     * what armed it. A kind the request forced itself always applies and consumes nothing.
     */
    public boolean take(FaultKind kind, boolean forcedByRequest) {
        if (forcedByRequest) {
            return true;
        }
        if (!clock.instant().isAfter(until.get(kind).get())) {
            return true;
        }
        AtomicInteger counter = remaining.get(kind);
        while (true) {
            int left = counter.get();
            if (left <= 0) {
                return false;
            }
            if (counter.compareAndSet(left, left - 1)) {
                return true;
            }
        }
    }

    /** What is armed: kind to a description ("next 3", "until ..."), for the admin endpoint. */
    public Map<String, String> armed() {
        Map<String, String> out = new LinkedHashMap<>();
        Instant now = clock.instant();
        for (FaultKind kind : FaultKind.values()) {
            int left = remaining.get(kind).get();
            Instant end = until.get(kind).get();
            StringBuilder sb = new StringBuilder();
            if (left > 0) {
                sb.append("next ").append(left);
            }
            if (!now.isAfter(end)) {
                sb.append(sb.length() == 0 ? "" : ", ").append(end.equals(Instant.MAX) ? "always" : "until " + end);
            }
            if (sb.length() > 0) {
                out.put(kind.wireName(), sb.toString());
            }
        }
        return out;
    }
}
