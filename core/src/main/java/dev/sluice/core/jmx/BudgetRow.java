package dev.sluice.core.jmx;

import javax.management.openmbean.CompositeData;

/** One bucket of a budget at the moment of reading, in the currency unit. Immutable. */
public final class BudgetRow {

    private final String scope;
    private final double spent;
    private final double reserved;
    private final double left;
    private final String resetsAt;

    public BudgetRow(String scope, double spent, double reserved, double left, String resetsAt) {
        this.scope = scope;
        this.spent = spent;
        this.reserved = reserved;
        this.left = left;
        this.resetsAt = resetsAt;
    }

    /** Rebuilds a row read from a JMX connection (what MXBean proxies call). */
    public static BudgetRow from(CompositeData d) {
        return new BudgetRow(
                (String) d.get("scope"),
                (Double) d.get("spent"),
                (Double) d.get("reserved"),
                (Double) d.get("left"),
                (String) d.get("resetsAt"));
    }

    /** E.g. {@code tenant=search}, or the limit's id for an organization-wide budget. */
    public String getScope() {
        return scope;
    }

    public double getSpent() {
        return spent;
    }

    public double getReserved() {
        return reserved;
    }

    public double getLeft() {
        return left;
    }

    /** ISO-8601; empty for a rolling window. */
    public String getResetsAt() {
        return resetsAt;
    }
}
