package dev.sluice.config;

import java.util.Collection;
import java.util.Locale;

/**
 * Finds the known name a misspelt one was probably meant to be ({@code wieght} -> {@code weight},
 * {@code max_attempts} -> {@code maxAttempts}). Suggests only when close, since a wrong guess
 * misleads more than no guess.
 */
final class DidYouMean {
    private DidYouMean() {}

    /** The closest candidate, or null when none is close enough. */
    static String nearest(String input, Collection<String> candidates) {
        String in = normalise(input);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = distance(in, normalise(candidate));
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        if (best == null || in.isEmpty()) {
            return null;
        }
        int allowed = in.length() <= 4 ? 1 : in.length() <= 8 ? 2 : 3;
        return bestDistance <= allowed ? best : null;
    }

    /** Case, {@code _}, {@code -} and {@code .} do not make names different for suggestions. */
    static String normalise(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '_' && c != '-' && c != '.') {
                b.append(c);
            }
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }

    /** Optimal string alignment distance: Levenshtein plus adjacent transpositions. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
