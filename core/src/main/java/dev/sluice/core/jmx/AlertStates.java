package dev.sluice.core.jmx;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Evaluates the {@link AlertCondition}s the way Prometheus evaluates the shipped rules, one check
 * at a time: each check is handed what the beans show now ({@link Readings}) and answers which
 * conditions started or stopped. Counters become rates and increases over the condition's window
 * from the readings of earlier checks; a condition fires once it has held for the rule's
 * {@code for:}, and clears once it no longer holds (or its subject went away), once each.
 *
 * <p>Rate-limited: a subject whose condition cleared does not fire again within
 * {@link AlertCondition#REFIRE_GAP}, and one check announces at most
 * {@link AlertCondition#MOST_NOTIFICATIONS_PER_CHECK} changes (clears first); the others keep
 * their state and are announced by the next checks. At most {@link #MOST_SUBJECTS} subjects per
 * condition are followed (the beans stop at 200 learned limits and tenants likewise).
 *
 * <p>The first check is a baseline: a counter's rate or increase needs an earlier reading, as in
 * Prometheus. A subject that appears later (a provider's first refusals, a new ungoverned client)
 * counted from zero since the check before. Not thread-safe: one timer thread runs the checks.
 */
final class AlertStates {

    /** Subjects followed per condition. */
    static final int MOST_SUBJECTS = 200;

    private static final long NEVER = Long.MIN_VALUE;

    private final long checkNanos;
    private final long refireGapNanos;
    private final EnumMap<AlertCondition, Long> windowNanos = new EnumMap<>(AlertCondition.class);
    private final EnumMap<AlertCondition, Long> holdNanos = new EnumMap<>(AlertCondition.class);
    private final EnumMap<AlertCondition, Map<String, State>> states = new EnumMap<>(AlertCondition.class);
    private long lastCheckNanos = NEVER;
    private long checks;

    /**
     * @param timeScale multiplies every window, hold, gap and the check interval: 1 evaluates the
     *     rules as shipped; a test compresses minutes into seconds
     */
    AlertStates(double timeScale) {
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("timeScale must be > 0, was " + timeScale);
        }
        this.checkNanos = Math.max(1, scaled(AlertCondition.CHECK_INTERVAL.toNanos(), timeScale));
        this.refireGapNanos = scaled(AlertCondition.REFIRE_GAP.toNanos(), timeScale);
        for (AlertCondition c : AlertCondition.values()) {
            windowNanos.put(c, scaled(c.window.toNanos(), timeScale));
            holdNanos.put(c, scaled(c.hold.toNanos(), timeScale));
            states.put(c, new LinkedHashMap<>());
        }
    }

    private static long scaled(long nanos, double scale) {
        return Math.round(nanos * scale);
    }

    /** How often {@link #check} is meant to run. */
    long checkNanos() {
        return checkNanos;
    }

    long windowNanos(AlertCondition c) {
        return windowNanos.get(c);
    }

    long holdNanos(AlertCondition c) {
        return holdNanos.get(c);
    }

    /** The changes to announce after this check, clears first; at most the per-check limit. */
    List<Change> check(long nowNanos, Readings readings) {
        checks++;
        boolean baseline = lastCheckNanos == NEVER;
        for (Reading r : readings.all) {
            State s = subject(r, nowNanos, baseline);
            if (s != null) {
                s.seenAt = checks;
                s.labels = r.labels;
                boolean active = evaluate(s, r, nowNanos);
                if (!active) {
                    s.activeSinceNanos = NEVER;
                } else if (s.activeSinceNanos == NEVER) {
                    s.activeSinceNanos = nowNanos;
                }
            }
        }
        List<Change> clears = new ArrayList<>();
        List<Change> fires = new ArrayList<>();
        for (Map.Entry<AlertCondition, Map<String, State>> byCondition : states.entrySet()) {
            AlertCondition c = byCondition.getKey();
            for (Iterator<State> it = byCondition.getValue().values().iterator(); it.hasNext(); ) {
                State s = it.next();
                if (s.seenAt != checks) {
                    s.activeSinceNanos = NEVER; // the subject went away: its condition no longer holds
                    if (!s.firing) {
                        it.remove();
                        continue;
                    }
                }
                if (s.firing && s.activeSinceNanos == NEVER) {
                    clears.add(new Change(c, s, false));
                } else if (!s.firing
                        && s.activeSinceNanos != NEVER
                        && nowNanos - s.activeSinceNanos >= holdNanos.get(c)
                        && (s.clearedAtNanos == NEVER || nowNanos - s.clearedAtNanos >= refireGapNanos)) {
                    fires.add(new Change(c, s, true));
                }
            }
        }
        List<Change> announced = new ArrayList<>();
        for (List<Change> kind : List.of(clears, fires)) {
            for (Change change : kind) {
                if (announced.size() == AlertCondition.MOST_NOTIFICATIONS_PER_CHECK) {
                    break;
                }
                announced.add(change);
                change.apply(nowNanos);
                if (!change.fired && change.state.seenAt != checks) {
                    states.get(change.condition).remove(change.state.key);
                }
            }
        }
        lastCheckNanos = nowNanos;
        return announced;
    }

    /** The state of a reading's subject, made on first sight; null past {@link #MOST_SUBJECTS}. */
    private State subject(Reading r, long nowNanos, boolean baseline) {
        Map<String, State> byKey = states.get(r.condition);
        State s = byKey.get(r.key);
        if (s == null) {
            if (byKey.size() >= MOST_SUBJECTS) {
                return null;
            }
            s = new State(r.condition, r.key, windowNanos.get(r.condition), checkNanos);
            if (r.counter && !baseline) {
                s.samples.add(lastCheckNanos, 0); // a counter that appeared since the last check started at 0
            }
            byKey.put(r.key, s);
        }
        return s;
    }

    /** Whether the condition holds for this reading now; sets the state's value (and detail). */
    private boolean evaluate(State s, Reading r, long nowNanos) {
        AlertCondition c = r.condition;
        switch (c) {
            case PROVIDER_429_SPIKE:
                s.samples.add(nowNanos, r.value);
                s.value = s.samples.ratePerSecond();
                return s.samples.spanNanos() > 0 && s.value > c.threshold;
            case QUEUE_NEARLY_FULL:
                s.value = r.value;
                s.detail = r.detail;
                return r.value > c.threshold * r.detail;
            case QUEUE_GROWING:
                s.samples.add(nowNanos, r.value);
                s.value = r.value;
                s.detail = s.samples.slopePerSecond();
                return r.value > c.threshold && s.samples.spanNanos() > 0 && s.detail > 0;
            case TOKEN_PRESSURE:
                s.value = r.value;
                return r.value > c.threshold;
            case UNGOVERNED_CALLS:
            case FAULTS:
                s.samples.add(nowNanos, r.value);
                s.value = s.samples.increase();
                return s.value > c.threshold;
            default:
                throw new IllegalStateException("no evaluation for " + c);
        }
    }

    /** What one check reads: every subject of every condition, as the beans show it now. */
    static final class Readings {
        final List<Reading> all = new ArrayList<>();

        /** A provider's 429 answers so far. */
        Readings provider429s(String provider, long count) {
            return add(AlertCondition.PROVIDER_429_SPIKE, provider, labels("provider", provider), count, 0, true);
        }

        /** A traffic class's calls waiting now, and how many its queue may hold. */
        Readings queue(String trafficClass, int waiting, int maxDepth) {
            Map<String, String> labels = labels("class", trafficClass);
            add(AlertCondition.QUEUE_NEARLY_FULL, trafficClass, labels, waiting, maxDepth, false);
            return add(AlertCondition.QUEUE_GROWING, trafficClass, labels, waiting, 0, false);
        }

        /** The share of a token limit in use in its busiest bucket. */
        Readings tokenLimit(String limitId, String provider, double utilisation) {
            return add(
                    AlertCondition.TOKEN_PRESSURE,
                    limitId,
                    labels("limit", limitId, "provider", provider),
                    utilisation,
                    0,
                    false);
        }

        /** Connections to a provider's host by a client Sluice does not govern, so far. */
        Readings ungoverned(String host, String client, long count) {
            return add(
                    AlertCondition.UNGOVERNED_CALLS,
                    host + " via " + client,
                    labels("host", host, "client", client),
                    count,
                    0,
                    true);
        }

        /** Faults inside Sluice so far. */
        Readings faults(long count) {
            return add(AlertCondition.FAULTS, "", labels(), count, 0, true);
        }

        private Readings add(
                AlertCondition c,
                String key,
                Map<String, String> labels,
                double value,
                double detail,
                boolean counter) {
            all.add(new Reading(c, key, labels, value, detail, counter));
            return this;
        }

        /** The subject's labels, as name, value pairs. */
        private static Map<String, String> labels(String... nameValues) {
            Map<String, String> labels = new LinkedHashMap<>();
            for (int i = 0; i < nameValues.length; i += 2) {
                labels.put(nameValues[i], nameValues[i + 1]);
            }
            return Collections.unmodifiableMap(labels);
        }
    }

    /** One subject's figure for one condition. */
    static final class Reading {
        final AlertCondition condition;
        final String key;
        final Map<String, String> labels;
        final double value;
        /** A second figure some conditions need: the queue's maximum depth. */
        final double detail;
        /** Whether {@code value} is a counter (only grows). */
        final boolean counter;

        Reading(
                AlertCondition condition,
                String key,
                Map<String, String> labels,
                double value,
                double detail,
                boolean counter) {
            this.condition = condition;
            this.key = key;
            this.labels = labels;
            this.value = value;
            this.detail = detail;
            this.counter = counter;
        }
    }

    /** A condition that started ({@code fired}) or stopped for one subject, with its figures when it did. */
    static final class Change {
        final AlertCondition condition;
        final boolean fired;
        final String key;
        final Map<String, String> labels;
        /** The rate, increase, count or share the condition compares. */
        final double value;
        /** The queue's maximum depth (nearly full), the queue's slope per second (growing); 0 otherwise. */
        final double detail;
        /** Since when the condition held (for a change that fired). */
        final long activeSinceNanos;
        /** When it had fired (for a change that cleared). */
        final long firedAtNanos;

        private final State state;

        private Change(AlertCondition condition, State state, boolean fired) {
            this.condition = condition;
            this.state = state;
            this.fired = fired;
            this.key = state.key;
            this.labels = state.labels;
            this.value = state.value;
            this.detail = state.detail;
            this.activeSinceNanos = state.activeSinceNanos;
            this.firedAtNanos = state.firedAtNanos;
        }

        private void apply(long nowNanos) {
            state.firing = fired;
            if (fired) {
                state.firedAtNanos = nowNanos;
            } else {
                state.clearedAtNanos = nowNanos;
            }
        }

        @Override
        public String toString() {
            return (fired ? condition.notificationType : AlertCondition.CLEARED + "(" + condition.ruleName + ")") + " "
                    + key + " " + value;
        }
    }

    /** One condition of one subject across checks. */
    private static final class State {
        final String key;
        final Samples samples;
        Map<String, String> labels;
        long seenAt;
        double value;
        double detail;
        long activeSinceNanos = NEVER;
        boolean firing;
        long firedAtNanos = NEVER;
        long clearedAtNanos = NEVER;

        State(AlertCondition condition, String key, long windowNanos, long checkNanos) {
            this.key = key;
            this.samples = condition.window.isZero() ? null : new Samples(windowNanos, checkNanos);
        }
    }

    /**
     * The readings of one figure over the last window (plus half a check, so that the reading a
     * window ago stays in although a check ran a little late), oldest first, in a ring.
     */
    static final class Samples {
        private final long keepNanos;
        private final long[] at;
        private final double[] value;
        private int first;
        private int size;

        Samples(long windowNanos, long checkNanos) {
            this.keepNanos = windowNanos + checkNanos / 2;
            int n = (int) Math.min(1_000, windowNanos / checkNanos + 3);
            this.at = new long[n];
            this.value = new double[n];
        }

        void add(long nanos, double v) {
            while (size > 0 && nanos - at[first] > keepNanos) {
                first = (first + 1) % at.length;
                size--;
            }
            if (size == at.length) {
                first = (first + 1) % at.length;
                size--;
            }
            int slot = (first + size) % at.length;
            at[slot] = nanos;
            value[slot] = v;
            size++;
        }

        private int index(int i) {
            return (first + i) % at.length;
        }

        /** From the oldest reading kept to the newest. */
        long spanNanos() {
            return size < 2 ? 0 : at[index(size - 1)] - at[first];
        }

        /** Newest less oldest. */
        double increase() {
            return size < 2 ? 0 : Math.max(0, value[index(size - 1)] - value[first]);
        }

        /** {@link #increase} per second over the span; 0 with fewer than two readings. */
        double ratePerSecond() {
            long span = spanNanos();
            return span <= 0 ? 0 : increase() / (span / 1e9);
        }

        /** The least-squares slope of the readings, per second (Prometheus' {@code deriv}). */
        double slopePerSecond() {
            if (spanNanos() <= 0) {
                return 0;
            }
            long origin = at[first];
            double sumT = 0;
            double sumV = 0;
            double sumTT = 0;
            double sumTV = 0;
            for (int i = 0; i < size; i++) {
                double t = (at[index(i)] - origin) / 1e9;
                double v = value[index(i)];
                sumT += t;
                sumV += v;
                sumTT += t * t;
                sumTV += t * v;
            }
            double denominator = size * sumTT - sumT * sumT;
            return denominator == 0 ? 0 : (size * sumTV - sumT * sumV) / denominator;
        }
    }
}
