package dev.sluice.core.jmx;

import dev.sluice.core.BucketView;
import dev.sluice.core.Governor;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The limits table an operator reads in an incident, rendered from the live limits and buckets the
 * governor admits against (not from the config file): one row per bucket, configured limits in
 * declaration order, then the limits learned from provider headers. Rows of limits that are not
 * enforced say so.
 */
final class LimitsTable {

    /** Rows shown per limit; a limit with more buckets (one per tenant, key...) says how many more. */
    static final int MAX_BUCKET_ROWS = 10;

    private static final String[] HEADER = {
        "LIMIT",
        "SCOPE",
        "DIMENSION",
        "WINDOW",
        "CAPACITY",
        "AVAILABLE",
        "RESERVED",
        "IN FLIGHT",
        "USED",
        "SOURCE",
        "NOTE"
    };

    private LimitsTable() {}

    static String render(SluiceMBeans beans) {
        Governor g = beans.governor();
        LiveView.Snapshot s = beans.view().now();
        List<String[]> rows = new ArrayList<>();
        List<Limit> configured = g.controls().limits();
        for (Limit l : configured) {
            LimitBean bean = LimitBean.configured(beans, l);
            addRows(rows, bean, s, note(bean));
        }
        List<LimitBean> learned = beans.learned();
        for (LimitBean bean : learned) {
            addRows(rows, bean, s, note(bean));
        }
        StringBuilder out = new StringBuilder();
        out.append("Sluice limits at ")
                .append(Instant.ofEpochMilli(s.epochMillis))
                .append(", mode ")
                .append(g.mode())
                .append(": ")
                .append(configured.size())
                .append(" configured, ")
                .append(learned.size())
                .append(" learned from provider headers\n");
        if (rows.isEmpty()) {
            return out.append("no limits: none configured, none learned from provider headers yet\n")
                    .toString();
        }
        rows.add(0, HEADER);
        return out.append(table(rows)).toString();
    }

    private static void addRows(List<String[]> rows, LimitBean bean, LiveView.Snapshot s, String note) {
        Limit l = bean.limit();
        LimitSpec spec = l.spec();
        String source = bean.getSource();
        String inFlight = Long.toString(bean.getInFlight());
        List<BucketView> views = new ArrayList<>(s.buckets(l.id()));
        if (views.isEmpty()) {
            String prefix = spec.provider() != null ? spec.provider() : "sluice";
            rows.add(new String[] {
                l.id(),
                prefix + "/" + spec.level().configName() + "=*",
                l.dimension().configName(),
                LimitBean.window(spec),
                Long.toString(l.capacity()),
                "-",
                "-",
                inFlight,
                "-",
                source,
                join(note, "no calls yet")
            });
            return;
        }
        views.sort(
                Comparator.comparingDouble(BucketView::utilisation).reversed().thenComparing(BucketView::scope));
        int shown = 0;
        for (BucketView v : views) {
            if (shown == MAX_BUCKET_ROWS) {
                rows.add(new String[] {
                    "", "... " + (views.size() - shown) + " more buckets", "", "", "", "", "", "", "", "", ""
                });
                break;
            }
            rows.add(new String[] {
                shown == 0 ? l.id() : "",
                v.scope(),
                v.dimension().configName(),
                LimitBean.window(spec),
                Long.toString(v.capacity()),
                Long.toString(v.room()),
                Long.toString(v.reserved()),
                shown == 0 ? inFlight : "",
                percent(v.utilisation()),
                source,
                note
            });
            shown++;
        }
    }

    private static String note(LimitBean bean) {
        String note = bean.isEnforced() ? "" : "NOT ENFORCED";
        long limit = bean.getProviderLimit();
        long remaining = bean.getProviderRemaining();
        if (limit >= 0 || remaining >= 0) {
            note = join(
                    note,
                    "provider: limit " + (limit >= 0 ? Long.toString(limit) : "?") + ", remaining "
                            + (remaining >= 0 ? Long.toString(remaining) : "?"));
        }
        return note;
    }

    private static String join(String a, String b) {
        return a.isEmpty() ? b : a + "; " + b;
    }

    static String percent(double utilisation) {
        return String.format(Locale.ROOT, "%.0f%%", utilisation * 100);
    }

    /** Left-aligned text columns, right-aligned numbers, two spaces apart. */
    static String table(List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        boolean[] numeric = new boolean[columns];
        for (int c = 0; c < columns; c++) {
            numeric[c] = true;
        }
        for (int r = 0; r < rows.size(); r++) {
            String[] row = rows.get(r);
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], row[c].length());
                if (r > 0 && !row[c].isEmpty() && !row[c].equals("-") && !row[c].matches("-?[0-9.]+%?")) {
                    numeric[c] = false;
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                String cell = row[c];
                String pad = " ".repeat(width[c] - cell.length());
                line.append(numeric[c] ? pad + cell : cell + pad);
                if (c < columns - 1) {
                    line.append("  ");
                }
            }
            out.append(line.toString().replaceAll("\\s+$", "")).append('\n');
        }
        return out.toString();
    }
}
