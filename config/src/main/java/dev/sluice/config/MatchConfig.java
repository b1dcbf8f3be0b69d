package dev.sluice.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How an outgoing HTTP exchange is recognised as a call to a provider: by host name (exact, or
 * a wildcard {@code *.suffix} / {@code *-suffix}; any scheme and port) or by URL prefix. A call
 * matches when any host or any URL prefix matches.
 */
public final class MatchConfig {
    private static final MatchConfig NONE = new MatchConfig(Collections.emptyList(), Collections.emptyList());
    private static final Pattern LABEL = Pattern.compile("[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?");

    private final List<String> hosts;
    private final List<String> urls;

    private MatchConfig(List<String> hosts, List<String> urls) {
        List<String> lower = new ArrayList<>(hosts.size());
        for (String h : hosts) {
            lower.add(h == null ? null : h.trim().toLowerCase(Locale.ROOT));
        }
        this.hosts = Collections.unmodifiableList(lower);
        this.urls = Collections.unmodifiableList(new ArrayList<>(urls));
    }

    /**
     * @throws IllegalArgumentException if a host is not a host name or wildcard, a URL not an
     *         absolute http(s) URL, or both lists are empty
     */
    public static MatchConfig of(List<String> hosts, List<String> urls) {
        MatchConfig m = unchecked(hosts, urls);
        Issues issues = new Issues();
        m.validate("", issues);
        issues.throwIfAny("match");
        return m;
    }

    public static MatchConfig hosts(String... hosts) {
        return of(List.of(hosts), Collections.emptyList());
    }

    public static MatchConfig urls(String... urls) {
        return of(Collections.emptyList(), List.of(urls));
    }

    static MatchConfig none() {
        return NONE;
    }

    static MatchConfig unchecked(List<String> hosts, List<String> urls) {
        return new MatchConfig(Objects.requireNonNull(hosts, "hosts"), Objects.requireNonNull(urls, "urls"));
    }

    /** Host names (lower case), exact or wildcard. */
    public List<String> hosts() {
        return hosts;
    }

    /** Absolute http(s) URL prefixes. */
    public List<String> urls() {
        return urls;
    }

    public boolean isEmpty() {
        return hosts.isEmpty() && urls.isEmpty();
    }

    /** True when this host (any case) is one of the hosts or matches a wildcard. */
    public boolean matchesHost(String host) {
        if (host == null) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        for (String pattern : hosts) {
            if (pattern.startsWith("*")) {
                String suffix = pattern.substring(1);
                if (h.length() > suffix.length() && h.endsWith(suffix)) {
                    return true;
                }
            } else if (pattern.equals(h)) {
                return true;
            }
        }
        return false;
    }

    /** True when this absolute URL starts with one of the URL prefixes (scheme and host compared ignoring case). */
    public boolean matchesUrl(String url) {
        if (url == null) {
            return false;
        }
        for (String prefix : urls) {
            int pathStart = prefix.indexOf('/', prefix.indexOf("://") + 3);
            int caseless = pathStart < 0 ? prefix.length() : pathStart;
            if (url.length() >= prefix.length()
                    && url.regionMatches(true, 0, prefix, 0, caseless)
                    && url.startsWith(prefix.substring(caseless), caseless)) {
                return true;
            }
        }
        return false;
    }

    /** True when the call goes to a matching host or URL. */
    public boolean matches(String host, String url) {
        return matchesHost(host) || matchesUrl(url);
    }

    void validate(String path, Issues issues) {
        if (isEmpty()) {
            issues.add(path, null, "needs at least one entry in hosts or urls");
        }
        for (int i = 0; i < hosts.size(); i++) {
            String h = hosts.get(i);
            String p = Issues.index(path, "hosts", i);
            if (h == null || h.isEmpty()) {
                issues.add(p, h, "a host must not be empty");
            } else if (h.contains("/") || h.contains(":")) {
                issues.add(
                        p,
                        h,
                        Issues.render(h) + " is not a host name; hosts match any scheme and port,"
                                + " put URL prefixes under urls");
            } else if (!isHostPattern(h)) {
                issues.add(p, h, Issues.render(h) + " is not a host name or a wildcard like *.example.com");
            }
        }
        for (int i = 0; i < urls.size(); i++) {
            String u = urls.get(i);
            String p = Issues.index(path, "urls", i);
            String problem = urlProblem(u);
            if (problem != null) {
                issues.add(p, u, Issues.render(u) + " " + problem);
            }
        }
    }

    private static boolean isHostPattern(String h) {
        String rest = h;
        if (h.startsWith("*.") || h.startsWith("*-")) {
            rest = h.substring(2);
        }
        if (rest.isEmpty()) {
            return false;
        }
        for (String label : rest.split("\\.", -1)) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }

    private static String urlProblem(String u) {
        if (u == null || u.isEmpty()) {
            return "must not be empty";
        }
        try {
            URI uri = new URI(u);
            String scheme = uri.getScheme();
            if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
                return "is not an absolute http or https URL";
            }
            if (uri.getRawAuthority() == null || uri.getRawAuthority().isEmpty()) {
                return "has no host";
            }
            if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
                return "must be a prefix without query or fragment";
            }
            return null;
        } catch (URISyntaxException e) {
            return "is not a valid URL: " + e.getReason();
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MatchConfig && hosts.equals(((MatchConfig) o).hosts) && urls.equals(((MatchConfig) o).urls);
    }

    @Override
    public int hashCode() {
        return 31 * hosts.hashCode() + urls.hashCode();
    }

    @Override
    public String toString() {
        return "MatchConfig{hosts=" + hosts + ", urls=" + urls + "}";
    }
}
