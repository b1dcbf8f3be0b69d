package dev.sluice.it.harness;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table, printed by tests and pasted into docs/scenarios.md as Markdown. */
public final class Table {

    private final List<String[]> rows = new ArrayList<>();
    private final String[] header;

    public Table(String... header) {
        this.header = header;
    }

    public synchronized Table row(Object... cells) {
        String[] r = new String[header.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = i < cells.length ? String.valueOf(cells[i]) : "";
        }
        rows.add(r);
        return this;
    }

    public synchronized boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Markdown, columns padded so it also reads well on a console. */
    @Override
    public synchronized String toString() {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] r : rows) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder s = new StringBuilder();
        line(s, header, width);
        String[] rule = new String[header.length];
        for (int i = 0; i < rule.length; i++) {
            rule[i] = "-".repeat(width[i]);
        }
        line(s, rule, width);
        for (String[] r : rows) {
            line(s, r, width);
        }
        return s.toString();
    }

    private static void line(StringBuilder s, String[] cells, int[] width) {
        s.append('|');
        for (int i = 0; i < cells.length; i++) {
            s.append(' ')
                    .append(cells[i])
                    .append(" ".repeat(width[i] - cells[i].length()))
                    .append(" |");
        }
        s.append('\n');
    }
}
