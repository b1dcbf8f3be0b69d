package dev.sluice.core.provider;

/**
 * The parts of an absolute URL Sluice reads (host, raw path, raw query), found in the string where
 * {@link java.net.URI} would find them, without parsing the whole URL: every governed call needs
 * them, and {@code URI.create} cost a governed call about 6 % of Sluice's own work for the clients
 * that hand over a string (OkHttp, Apache, Reactor Netty). Raw: nothing is decoded.
 */
public final class Urls {

    private Urls() {}

    /**
     * The host as written (not lower-cased), an IPv6 literal with its brackets; empty when the URL
     * has no authority ({@code scheme://}).
     */
    public static String host(String url) {
        int start = authorityStart(url);
        if (start < 0) {
            return "";
        }
        int end = authorityEnd(url, start);
        int at = url.lastIndexOf('@', end - 1);
        if (at >= start) {
            start = at + 1;
        }
        if (start < end && url.charAt(start) == '[') {
            int close = url.indexOf(']', start);
            return close < 0 || close >= end ? url.substring(start, end) : url.substring(start, close + 1);
        }
        int colon = url.indexOf(':', start);
        return url.substring(start, colon >= 0 && colon < end ? colon : end);
    }

    /** The raw path, from the authority's end to the query or fragment; empty when there is none. */
    public static String rawPath(String url) {
        int start = authorityStart(url);
        start = start < 0 ? afterScheme(url) : authorityEnd(url, start);
        int end = start;
        while (end < url.length() && url.charAt(end) != '?' && url.charAt(end) != '#') {
            end++;
        }
        return url.substring(start, end);
    }

    /** The raw query, between {@code ?} and the fragment; null when the URL has none. */
    public static String rawQuery(String url) {
        int fragment = url.indexOf('#');
        int end = fragment < 0 ? url.length() : fragment;
        int question = url.indexOf('?');
        return question < 0 || question > end ? null : url.substring(question + 1, end);
    }

    /** Where the authority begins (after {@code ://}), or -1 when the URL has none. */
    private static int authorityStart(String url) {
        int slashes = url.indexOf("://");
        if (slashes < 0) {
            return -1;
        }
        for (int i = 0; i < slashes; i++) { // "://" in a query or path is not a scheme's end
            char c = url.charAt(i);
            if (c == '/' || c == '?' || c == '#') {
                return -1;
            }
        }
        return slashes + 3;
    }

    /** The first {@code /}, {@code ?} or {@code #} from {@code start}, or the URL's end. */
    private static int authorityEnd(String url, int start) {
        int end = start;
        while (end < url.length()) {
            char c = url.charAt(end);
            if (c == '/' || c == '?' || c == '#') {
                break;
            }
            end++;
        }
        return end;
    }

    /** After {@code scheme:} in a URL without an authority, or 0 for a bare path. */
    private static int afterScheme(String url) {
        for (int i = 0; i < url.length(); i++) {
            char c = url.charAt(i);
            if (c == ':') {
                return i + 1;
            }
            if (c == '/' || c == '?' || c == '#') {
                return 0;
            }
        }
        return 0;
    }

    /** Percent-decodes one path segment ({@code +} stays a plus in a path), as UTF-8; null when malformed. */
    public static String decodeSegment(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                if (i + 2 >= segment.length()) {
                    return null;
                }
                int hi = Character.digit(segment.charAt(i + 1), 16);
                int lo = Character.digit(segment.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return new String(out.toByteArray(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
