package dev.sluice.agent;

import dev.sluice.core.jmx.BudgetMXBean;
import dev.sluice.core.jmx.GovernorMXBean;
import dev.sluice.core.jmx.LimitMXBean;
import dev.sluice.core.jmx.ProviderMXBean;
import dev.sluice.core.jmx.RampMXBean;
import dev.sluice.core.jmx.SluiceMBeans;
import dev.sluice.core.jmx.TenantMXBean;
import dev.sluice.core.jmx.TrafficClassMXBean;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeSet;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The compact live view {@code status} prints: totals and mode, limits with utilisation bars,
 * tenants, queues and providers, read from the {@code dev.sluice} MXBeans of a JVM, as any JMX
 * client could.
 */
final class StatusView {

    static final int BAR_WIDTH = 20;
    /** Rows per section: the busiest limits, the tenants with the most calls. */
    static final int MAX_ROWS = 20;

    private StatusView() {}

    /** Connections to a provider through a client Sluice does not govern: calls that bypass it. */
    private static void ungoverned(GovernorMXBean g, StringBuilder out) {
        java.util.Map<String, Long> ungoverned;
        try {
            ungoverned = g.getUngovernedConnections();
        } catch (RuntimeException olderAgent) {
            return; // an agent from before the attribute existed
        }
        if (ungoverned == null || ungoverned.isEmpty()) {
            return;
        }
        out.append("NOT GOVERNED (these calls bypass Sluice):");
        String separator = " ";
        for (java.util.Map.Entry<String, Long> e : new java.util.TreeMap<>(ungoverned).entrySet()) {
            out.append(separator)
                    .append(e.getKey())
                    .append(" (")
                    .append(e.getValue())
                    .append(e.getValue() == 1 ? " connection)" : " connections)");
            separator = "; ";
        }
        out.append('\n');
    }

    static String render(MBeanServerConnection c, String heading) throws IOException {
        GovernorMXBean g = JMX.newMXBeanProxy(c, SluiceMBeans.governorName(), GovernorMXBean.class);
        StringBuilder out = new StringBuilder();
        out.append(heading)
                .append(", mode ")
                .append(g.getMode())
                .append(", config ")
                .append(g.getConfigOrigin())
                .append('\n');
        out.append("admitted ")
                .append(g.getAdmitted())
                .append("  rejected ")
                .append(g.getRejected())
                .append(rejections(g.getRejectionsByReason()))
                .append("  waiting ")
                .append(g.getWaiting())
                .append("  in flight ")
                .append(g.getInFlight())
                .append('\n');
        String[] tenants = g.getPausedTenants();
        String[] keys = g.getPausedApiKeys();
        if (tenants.length > 0 || keys.length > 0) {
            out.append("PAUSED by an operator:");
            if (tenants.length > 0) {
                out.append(" tenants ").append(String.join(", ", tenants));
            }
            if (keys.length > 0) {
                out.append(tenants.length > 0 ? ";" : "").append(" API keys ").append(String.join(", ", keys));
            }
            out.append('\n');
        }
        ungoverned(g, out);
        limits(c, out);
        budgets(c, out);
        prices(g, out);
        tenants(c, out);
        queues(c, out);
        providers(c, out);
        ramps(c, out);
        return out.toString();
    }

    private static String rejections(Map<String, Long> byReason) {
        StringJoiner j = new StringJoiner(", ", " (", ")").setEmptyValue("");
        byReason.forEach((reason, n) -> {
            if (n > 0) {
                j.add(reason + " " + n);
            }
        });
        return j.toString();
    }

    private static void limits(MBeanServerConnection c, StringBuilder out) throws IOException {
        List<LimitMXBean> limits = new ArrayList<>();
        for (ObjectName n : names(c, "Limit")) {
            limits.add(JMX.newMXBeanProxy(c, n, LimitMXBean.class));
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"LIMIT", "DIMENSION", "USED", "", "AVAILABLE", "IN FLIGHT", "NOTE"});
        List<Object[]> read = new ArrayList<>();
        for (LimitMXBean l : limits) {
            read.add(new Object[] {
                l.getUtilisation(),
                l.getSource(),
                new String[] {
                    l.getId(),
                    l.getDimension() + (l.getWindow().isEmpty() ? "" : "/" + l.getWindow()),
                    bar(l.getUtilisation()),
                    percent(l.getUtilisation()),
                    l.getAvailable() + "/" + l.getCapacity(),
                    Long.toString(l.getInFlight()),
                    note(l)
                }
            });
        }
        // configured first, then learned; the busiest first within each
        read.sort(Comparator.comparing((Object[] r) -> (String) r[1]).thenComparing(r -> -(Double) r[0]));
        for (Object[] r : read) {
            if (rows.size() > MAX_ROWS) {
                break;
            }
            rows.add((String[]) r[2]);
        }
        section(out, "LIMITS", rows, read.size());
    }

    /** Every budget's tightest bucket: spent, reserved and left in the currency, and when it resets. */
    private static void budgets(MBeanServerConnection c, StringBuilder out) throws IOException {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"BUDGET", "PERIOD", "SPENT", "", "RESERVED", "LEFT", "RESETS AT", "NOTE"});
        int total = 0;
        for (ObjectName n : names(c, "Budget")) {
            total++;
            if (rows.size() > MAX_ROWS) {
                continue;
            }
            BudgetMXBean b = JMX.newMXBeanProxy(c, n, BudgetMXBean.class);
            double amount = b.getAmount();
            double spent = b.getSpent();
            String currency = b.getCurrency();
            StringJoiner note = new StringJoiner("; ");
            if (!b.isEnforced()) {
                note.add("NOT ENFORCED");
            }
            if (b.getBucketCount() > 1) {
                note.add(b.getBucketCount() + " " + b.getLevel() + "s, the tightest shown");
            }
            if (b.getExhaustedRejections() > 0) {
                note.add("refused " + b.getExhaustedRejections());
            }
            rows.add(new String[] {
                b.getId(),
                b.getPeriod(),
                bar(amount <= 0 ? 0 : spent / amount),
                money(spent) + "/" + money(amount) + " " + currency,
                money(b.getReserved()),
                money(b.getLeft()),
                b.getResetsAt(),
                note.toString()
            });
        }
        if (total > 0) {
            section(out, "BUDGETS", rows, total);
        }
    }

    /**
     * Where prices come from, and the models calls were made to that no price covers: their calls
     * count nothing against budgets until someone prices them.
     */
    private static void prices(GovernorMXBean g, StringBuilder out) {
        String tables;
        Map<String, Long> unpriced;
        try {
            tables = g.getPriceTables();
            unpriced = g.getUnpricedModels();
        } catch (RuntimeException olderAgent) {
            return; // an agent from before the attributes existed
        }
        if (tables != null && !tables.isEmpty()) {
            out.append("PRICES: ").append(tables).append('\n');
        }
        if (unpriced == null || unpriced.isEmpty()) {
            return;
        }
        out.append("UNPRICED (charged nothing against budgets; price them under prices: or in pricesFile):");
        String separator = " ";
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(unpriced).entrySet()) {
            out.append(separator)
                    .append(e.getKey())
                    .append(" (")
                    .append(e.getValue())
                    .append(e.getValue() == 1 ? " call)" : " calls)");
            separator = "; ";
        }
        out.append('\n');
    }

    private static String money(double v) {
        return String.format(java.util.Locale.ROOT, "%.2f", v);
    }

    private static String note(LimitMXBean l) {
        StringJoiner j = new StringJoiner("; ");
        if (!l.isEnforced()) {
            j.add("NOT ENFORCED");
        }
        if (l.getSource().equals("learned")) {
            j.add("learned");
        }
        if (l.getProviderRemaining() >= 0) {
            j.add("provider remaining " + l.getProviderRemaining());
        }
        return j.toString();
    }

    private static void tenants(MBeanServerConnection c, StringBuilder out) throws IOException {
        List<TenantMXBean> tenants = new ArrayList<>();
        for (ObjectName n : names(c, "Tenant")) {
            tenants.add(JMX.newMXBeanProxy(c, n, TenantMXBean.class));
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "TENANT", "WEIGHT", "SHARE", "ADMITTED", "REJECTED", "QUEUED", "TOKENS IN", "TOKENS OUT", "STATE"
        });
        List<Object[]> read = new ArrayList<>();
        for (TenantMXBean t : tenants) {
            long admitted = t.getAdmitted();
            read.add(new Object[] {
                admitted,
                new String[] {
                    t.getName(),
                    number(t.getWeight()),
                    number(t.getGuaranteedShare()),
                    Long.toString(admitted),
                    Long.toString(t.getRejected()),
                    Integer.toString(t.getQueued()),
                    Long.toString(t.getInputTokens()),
                    Long.toString(t.getOutputTokens()),
                    t.isPaused() ? "PAUSED" : ""
                }
            });
        }
        read.sort(Comparator.comparing((Object[] r) -> -(Long) r[0]));
        for (Object[] r : read) {
            if (rows.size() > MAX_ROWS) {
                break;
            }
            rows.add((String[]) r[1]);
        }
        section(out, "TENANTS", rows, read.size());
    }

    private static void queues(MBeanServerConnection c, StringBuilder out) throws IOException {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"CLASS", "DEPTH", "MAX DEPTH", "MAX WAIT", "WAIT P50", "WAIT P95", "EXPIRED", "REJECTED"
        });
        for (ObjectName n : names(c, "TrafficClass")) {
            TrafficClassMXBean q = JMX.newMXBeanProxy(c, n, TrafficClassMXBean.class);
            rows.add(new String[] {
                q.getName(),
                Integer.toString(q.getQueueDepth()),
                Integer.toString(q.getMaxQueueDepth()),
                q.getMaxWaitMillis() + " ms",
                millis(q.getWaitP50Millis()),
                millis(q.getWaitP95Millis()),
                Long.toString(q.getDeadlineExpirations()),
                Long.toString(q.getRejected())
            });
        }
        section(out, "QUEUES", rows, rows.size() - 1);
    }

    private static void providers(MBeanServerConnection c, StringBuilder out) throws IOException {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "PROVIDER",
            "CALLS",
            "RETRIES",
            "429",
            "503",
            "529",
            "LOCAL REJECTIONS",
            "PAUSED FOR",
            "RETRY BUDGET",
            "ESTIMATE ERROR"
        });
        for (ObjectName n : names(c, "Provider")) {
            ProviderMXBean p = JMX.newMXBeanProxy(c, n, ProviderMXBean.class);
            long paused = p.getPausedForMillis();
            rows.add(new String[] {
                p.getName(),
                Long.toString(p.getCalls()),
                Long.toString(p.getRetries()),
                Long.toString(p.getStatus429()),
                Long.toString(p.getStatus503()),
                Long.toString(p.getStatus529()),
                Long.toString(p.getLocalRejections()),
                paused == 0 ? "-" : paused + " ms",
                number(p.getRetryBudgetRemaining()),
                percent(p.getInputEstimateError())
            });
        }
        section(out, "PROVIDERS", rows, rows.size() - 1);
        scopes(c, out);
    }

    /** Each provider scope: whose budget it is (an organization, or a key until one is named) and what others take. */
    private static void scopes(MBeanServerConnection c, StringBuilder out) throws IOException {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "SCOPE", "ORGANIZATION", "KEY", "LEARNED LIMITS", "PAUSED FOR", "OTHERS TAKE", "PACED BY 429S"
        });
        int total = 0;
        for (ObjectName n : names(c, "Provider")) {
            ProviderMXBean p = JMX.newMXBeanProxy(c, n, ProviderMXBean.class);
            for (dev.sluice.core.jmx.ScopeRow s : p.getScopes()) {
                total++;
                if (rows.size() <= MAX_SCOPE_ROWS) {
                    rows.add(new String[] {
                        s.getScope(),
                        s.getOrganization(),
                        s.getApiKeyId(),
                        Integer.toString(s.getLearnedLimits()),
                        s.getPausedForMillis() == 0 ? "-" : s.getPausedForMillis() + " ms",
                        percent(s.getExternalShare()),
                        s.getPacedBy429sPerMinute() < 0 ? "-" : s.getPacedBy429sPerMinute() + "/min"
                    });
                }
            }
        }
        section(out, "PROVIDER SCOPES", rows, total);
    }

    /** Scope rows the status shows; the Provider beans' Scopes have them all. */
    private static final int MAX_SCOPE_ROWS = 20;

    /** The providers' ramps, when any: a ramping or held one is what an operator looks for. */
    private static void ramps(MBeanServerConnection c, StringBuilder out) throws IOException {
        TreeSet<ObjectName> names = names(c, "Ramp");
        if (names.isEmpty()) {
            return;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"RAMP", "STATE", "CEILING", "RECENT", "GROWTH", "SHARE", "429 SHARE", "TRIPPED BY"});
        for (ObjectName n : names) {
            RampMXBean r = JMX.newMXBeanProxy(c, n, RampMXBean.class);
            rows.add(new String[] {
                r.getProvider(),
                r.getState(),
                r.getCeilingPerSecond() < 0 ? "-" : number(r.getCeilingPerSecond()) + "/s",
                number(r.getRecentPerSecond()) + "/s",
                r.getShare() < 0 ? "x" + number(r.getGrowth()) + " per " + r.getIntervalMillis() / 1000.0 + " s" : "-",
                r.getShare() < 0 ? "-" : percent(r.getShare()),
                percent(r.getRejectedShare()),
                r.getTrippedBy().isEmpty() ? "-" : r.getTrippedBy()
            });
        }
        section(out, "RAMPS", rows, rows.size() - 1);
    }

    private static void section(StringBuilder out, String title, List<String[]> rows, int total) {
        out.append('\n');
        if (rows.size() == 1) {
            out.append(title).append(": none yet\n");
            return;
        }
        out.append(TextTable.render(rows));
        if (total > rows.size() - 1) {
            out.append("... and ").append(total - (rows.size() - 1)).append(" more\n");
        }
    }

    /** Beans of one type, by name. */
    static TreeSet<ObjectName> names(MBeanServerConnection c, String type) throws IOException {
        try {
            return new TreeSet<>(c.queryNames(new ObjectName(SluiceMBeans.DOMAIN + ":type=" + type + ",*"), null));
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** {@code [#######.............]}: one mark per 5 % of the capacity in use, full past 100 %. */
    static String bar(double utilisation) {
        int marks = (int) Math.round(Math.max(0, Math.min(1, utilisation)) * BAR_WIDTH);
        StringBuilder b = new StringBuilder(BAR_WIDTH + 2).append('[');
        for (int i = 0; i < BAR_WIDTH; i++) {
            b.append(i < marks ? '#' : '.');
        }
        return b.append(']').toString();
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }

    private static String millis(double ms) {
        return String.format(Locale.ROOT, ms < 10 ? "%.1f ms" : "%.0f ms", ms);
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15
                ? Long.toString((long) v) + ".0"
                : String.format(Locale.ROOT, "%.2f", v);
    }
}
