package dev.sluice.core.jmx;

import java.time.Duration;

/**
 * The conditions the shipped Prometheus rules ({@code ops/prometheus/sluice-rules.yml}) alert on,
 * besides spend (the Budget beans notify of that), with their thresholds: the one definition the
 * Governor bean's notifications ({@link GovernorAlerts}) evaluate, and the one the rules file is
 * held to by {@code AlertConditionTest}. Change a threshold here and in the rules file together.
 */
enum AlertCondition {

    /** {@code rate(sluice_provider_responses_total{status="429"}[1m]) > 0.2} per provider, for 2m. */
    PROVIDER_429_SPIKE("SluiceProvider429Spike", "provider429Spike", "warning", 0.2, minutes(1), minutes(2)),

    /** {@code sluice_class_waiting > 0.8 * sluice_class_max_queue_depth} per class, for 1m. */
    QUEUE_NEARLY_FULL("SluiceQueueNearlyFull", "queueNearlyFull", "warning", 0.8, Duration.ZERO, minutes(1)),

    /**
     * {@code sluice_class_waiting > 10} and the slope of the waiting calls over the last 5m
     * ({@code deriv(...[5m:15s])}) above 0, per class, for 5m.
     */
    QUEUE_GROWING("SluiceQueueGrowing", "queueGrowing", "warning", 10, minutes(5), minutes(5)),

    /** {@code sluice_limit_utilisation > 0.9} for a limit counting tokens, per limit, for 5m. */
    TOKEN_PRESSURE("SluiceTokenPressure", "tokenPressure", "warning", 0.9, Duration.ZERO, minutes(5)),

    /** {@code increase(sluice_ungoverned_connections_total[10m]) > 0} per host and client, at once. */
    UNGOVERNED_CALLS("SluiceUngovernedCalls", "ungovernedCalls", "warning", 0, minutes(10), Duration.ZERO),

    /** {@code increase(sluice_faults_total[5m]) > 0}, at once. */
    FAULTS("SluiceFaults", "faults", "info", 0, minutes(5), Duration.ZERO);

    /** The notification type of every condition that stopped: its user data names which. */
    static final String CLEARED = "sluice.alert.cleared";

    /**
     * How often the conditions are checked while someone listens: the resolution of
     * {@link #QUEUE_GROWING}'s slope (the rule's subquery step), and about a Prometheus rule's
     * evaluation interval.
     */
    static final Duration CHECK_INTERVAL = Duration.ofSeconds(15);

    /**
     * The rate limit: once a condition of one subject (a provider, a class...) cleared, it does not
     * fire again for this long; if it holds beyond, it fires then. A flapping queue sends two
     * notifications every five minutes, not two a minute.
     */
    static final Duration REFIRE_GAP = minutes(5);

    /** The rate limit over all subjects: notifications beyond this in one check wait for the next checks. */
    static final int MOST_NOTIFICATIONS_PER_CHECK = 20;

    /** The rule's {@code alert:} name. */
    final String ruleName;

    /** The notification type sent when the condition starts. */
    final String notificationType;

    /** The rule's {@code severity} label. */
    final String severity;

    /** What the condition's value is compared to. */
    final double threshold;

    /** The range its rate, increase or slope is taken over; zero for a condition on a gauge. */
    final Duration window;

    /** The rule's {@code for:}: how long the condition must hold before it fires. */
    final Duration hold;

    AlertCondition(String ruleName, String type, String severity, double threshold, Duration window, Duration hold) {
        this.ruleName = ruleName;
        this.notificationType = "sluice.alert." + type;
        this.severity = severity;
        this.threshold = threshold;
        this.window = window;
        this.hold = hold;
    }

    private static Duration minutes(long n) {
        return Duration.ofMinutes(n);
    }
}
