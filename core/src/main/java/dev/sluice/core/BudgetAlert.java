package dev.sluice.core;

/** A budget crossed its warning share, or ran out: sent once per period and bucket. Immutable. */
public final class BudgetAlert {

    /** How far the budget has gone. */
    public enum Level {
        /** Spent reached the budget's {@code warnAt} share (80 % by default). */
        WARNING("sluice.budget.warning"),
        /** Spent reached the whole amount, or a call was refused for want of budget. */
        EXHAUSTED("sluice.budget.exhausted");

        private final String notificationType;

        Level(String notificationType) {
            this.notificationType = notificationType;
        }

        /** The {@code javax.management.Notification} type this level is sent as. */
        public String notificationType() {
            return notificationType;
        }
    }

    private final Level level;
    private final double threshold;
    private final BudgetStatus status;

    BudgetAlert(Level level, double threshold, BudgetStatus status) {
        this.level = level;
        this.threshold = threshold;
        this.status = status;
    }

    public Level level() {
        return level;
    }

    /** The share of the amount that was crossed (the budget's warnAt, or 1). */
    public double threshold() {
        return threshold;
    }

    public BudgetStatus status() {
        return status;
    }

    /** The log line and notification message. */
    public String message() {
        return "budget " + status.limitId() + " (" + status.scope() + ") "
                + (level == Level.WARNING ? "passed " + Math.round(threshold * 100) + " %: " : "exhausted: ")
                + status.describe();
    }

    @Override
    public String toString() {
        return level + " " + message();
    }
}
