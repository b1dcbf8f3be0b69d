package dev.sluice.agent;

import java.util.List;

/** Columns two spaces apart, numbers right-aligned, for the CLI's tables. */
final class TextTable {

    private TextTable() {}

    static String render(List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        boolean[] numeric = new boolean[columns];
        java.util.Arrays.fill(numeric, true);
        for (int r = 0; r < rows.size(); r++) {
            String[] row = rows.get(r);
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], row[c].length());
                if (r > 0 && !row[c].isEmpty() && !row[c].equals("-") && !row[c].matches("-?[0-9.]+( ms|%)?")) {
                    numeric[c] = false;
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                String pad = " ".repeat(width[c] - row[c].length());
                line.append(numeric[c] ? pad + row[c] : row[c] + pad);
                if (c < columns - 1) {
                    line.append("  ");
                }
            }
            int end = line.length();
            while (end > 0 && line.charAt(end - 1) == ' ') {
                end--;
            }
            out.append(line, 0, end).append('\n');
        }
        return out.toString();
    }
}
