package dev.sluice.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * An SVG chart, one panel per run: requests the provider admitted (green) and refused with 429
 * (red) each second. Plain SVG, no library: it opens in any browser.
 */
final class Chart {

    private static final int PANEL_WIDTH = 520;
    private static final int PANEL_HEIGHT = 260;
    private static final int MARGIN = 40;

    private Chart() {}

    record Panel(String title, long[] admitted, long[] refused) {}

    static void write(Path file, String heading, List<Panel> panels, long capacityPerSecond) throws IOException {
        long max = capacityPerSecond;
        for (Panel p : panels) {
            for (int i = 0; i < p.admitted.length; i++) {
                max = Math.max(max, p.admitted[i] + p.refused[i]);
            }
        }
        int width = panels.size() * (PANEL_WIDTH + MARGIN) + MARGIN;
        int height = PANEL_HEIGHT + 3 * MARGIN;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">%n",
                width,
                height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(String.format(
                Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"15\">%s</text>%n", MARGIN, escape(heading)));
        for (int p = 0; p < panels.size(); p++) {
            panel(svg, panels.get(p), MARGIN + p * (PANEL_WIDTH + MARGIN), 2 * MARGIN, max, capacityPerSecond);
        }
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"#2e9e44\"/>"
                        + "<text x=\"%d\" y=\"%d\">admitted by the provider</text>%n",
                MARGIN,
                height - 15,
                MARGIN + 14,
                height - 6));
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"#d63c3c\"/>"
                        + "<text x=\"%d\" y=\"%d\">refused (429)</text>%n",
                MARGIN + 180,
                height - 15,
                MARGIN + 194,
                height - 6));
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" "
                        + "stroke-dasharray=\"4 3\"/><text x=\"%d\" y=\"%d\">provider capacity per second</text>%n",
                MARGIN + 300,
                height - 10,
                MARGIN + 330,
                height - 10,
                MARGIN + 334,
                height - 6));
        svg.append("</svg>\n");
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    private static void panel(StringBuilder svg, Panel panel, int x0, int y0, long max, long capacity) {
        int seconds = panel.admitted.length;
        double barWidth = (double) PANEL_WIDTH / seconds;
        svg.append(String.format(
                Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"13\">%s</text>%n", x0, y0 - 8, escape(panel.title)));
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" " + "stroke=\"#999\"/>%n",
                x0,
                y0,
                PANEL_WIDTH,
                PANEL_HEIGHT));
        for (int s = 0; s < seconds; s++) {
            double ok = PANEL_HEIGHT * (double) panel.admitted[s] / max;
            double refused = PANEL_HEIGHT * (double) panel.refused[s] / max;
            double x = x0 + s * barWidth;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" " + "fill=\"#2e9e44\"/>",
                    x,
                    y0 + PANEL_HEIGHT - ok,
                    barWidth - 1,
                    ok));
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" " + "fill=\"#d63c3c\"/>%n",
                    x,
                    y0 + PANEL_HEIGHT - ok - refused,
                    barWidth - 1,
                    refused));
        }
        double cy = y0 + PANEL_HEIGHT - PANEL_HEIGHT * (double) capacity / max;
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\" " + "stroke-dasharray=\"4 3\"/>%n",
                x0,
                cy,
                x0 + PANEL_WIDTH,
                cy));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" " + "text-anchor=\"end\">%d s</text>%n",
                x0,
                y0 + PANEL_HEIGHT + 14,
                x0 + PANEL_WIDTH,
                y0 + PANEL_HEIGHT + 14,
                seconds));
        svg.append(String.format(
                Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d/s</text>%n", x0 - 4, y0 + 10, max));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
