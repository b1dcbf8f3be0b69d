package dev.sluice.core;

import java.time.Instant;
import java.util.Locale;

/**
 * Where one bucket of a spend limit (a budget) stands: its amount, what settled calls spent in the
 * current period, what calls in flight hold reserved, what is left, and when the period starts
 * again. Amounts are micro-units of the config's currency. Immutable.
 */
public final class BudgetStatus {

    private final String limitId;
    private final String scope;
    private final String currency;
    private final String period;
    private final long amountMicros;
    private final long spentMicros;
    private final long reservedMicros;
    private final long periodStartMillis;
    private final long resetsAtMillis;

    public BudgetStatus(
            String limitId,
            String scope,
            String currency,
            String period,
            long amountMicros,
            long spentMicros,
            long reservedMicros,
            long periodStartMillis,
            long resetsAtMillis) {
        this.limitId = limitId;
        this.scope = scope;
        this.currency = currency;
        this.period = period;
        this.amountMicros = amountMicros;
        this.spentMicros = spentMicros;
        this.reservedMicros = reservedMicros;
        this.periodStartMillis = periodStartMillis;
        this.resetsAtMillis = resetsAtMillis;
    }

    /** The spend limit's id, as in the config. */
    public String limitId() {
        return limitId;
    }

    /** The bucket's scope, e.g. {@code tenant=search}, or the limit's id for an organization-wide budget. */
    public String scope() {
        return scope;
    }

    public String currency() {
        return currency;
    }

    /** {@code hour}, {@code day}, {@code week}, {@code month} for calendar periods; the window ({@code 1h}) for a rolling one. */
    public String period() {
        return period;
    }

    public long amountMicros() {
        return amountMicros;
    }

    /** What settled calls were charged in the current period (a rolling window: what has not refilled yet). */
    public long spentMicros() {
        return spentMicros;
    }

    /** What calls in flight hold reserved: their worst case, until they settle. */
    public long reservedMicros() {
        return reservedMicros;
    }

    /** What a new call may still reserve: the amount less spent and reserved, never below 0. */
    public long leftMicros() {
        return Math.max(0, amountMicros - spentMicros - reservedMicros);
    }

    /** Start of the current calendar period (epoch ms); -1 for a rolling window. */
    public long periodStartMillis() {
        return periodStartMillis;
    }

    /**
     * When the period starts again (epoch ms) for a calendar period; for a rolling window, when
     * enough has refilled for the call that was refused (or -1 when nothing was asked).
     */
    public long resetsAtMillis() {
        return resetsAtMillis;
    }

    /** An amount in micro-units as currency, two decimals at least: {@code 4.95 USD}, {@code 0.0042 USD}. */
    public static String money(long micros, String currency) {
        double units = micros / 1e6;
        String n = Math.abs(units) >= 0.01 || micros == 0
                ? String.format(Locale.ROOT, "%.2f", units)
                : String.format(Locale.ROOT, "%.6f", units).replaceAll("0+$", "");
        return n + " " + currency;
    }

    /** One line a person reads: "spent 4.95 of 5.00 USD this day, 0.03 USD reserved; resets at ...". */
    public String describe() {
        StringBuilder s = new StringBuilder(128)
                .append("spent ")
                .append(money(spentMicros, currency))
                .append(" of ")
                .append(money(amountMicros, currency))
                .append(periodStartMillis >= 0 ? " this " : " in the last ")
                .append(period);
        if (reservedMicros > 0) {
            s.append(", ").append(money(reservedMicros, currency)).append(" reserved by calls in flight");
        }
        if (resetsAtMillis > 0) {
            s.append("; ")
                    .append(periodStartMillis >= 0 ? "resets at " : "room again at ")
                    .append(Instant.ofEpochMilli(resetsAtMillis));
        }
        return s.toString();
    }

    @Override
    public String toString() {
        return "BudgetStatus{" + limitId + " " + scope + ": " + describe() + '}';
    }
}
