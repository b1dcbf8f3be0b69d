package dev.sluice.core;

/** Why a call did not get (or keep) its admission; the {@code gateway_decision} of a rejection body. */
public enum GatewayDecision {
    /** A limit had no room and the call could not wait for it. */
    REJECTED_LOCALLY("rejected_locally"),
    /** The call waited in its traffic class queue until its deadline passed. */
    QUEUE_DEADLINE_EXCEEDED("queue_deadline_exceeded"),
    /** The traffic class queue was full. */
    QUEUE_FULL("queue_full"),
    /** An operator paused the tenant, API key or provider scope. */
    PAUSED("paused"),
    /** Sluice admitted the call but the provider refused it, and Sluice did not retry. */
    ADMITTED_THEN_PROVIDER_REJECTED("admitted_then_provider_rejected"),
    /** The provider refused the call and the retry budget of its scope was spent. */
    RETRY_BUDGET_EXHAUSTED("retry_budget_exhausted"),
    /** The call can never be admitted: it needs more than a limit's whole capacity. */
    NOT_ADMISSIBLE("not_admissible"),
    /** A budget (a spend limit) has less left than the call may cost; it resets with its period. */
    BUDGET_EXHAUSTED("budget_exhausted");

    private final String wireName;

    GatewayDecision(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in rejection bodies, logs and JMX. */
    public String wireName() {
        return wireName;
    }

    @Override
    public String toString() {
        return wireName;
    }
}
