package dev.sluice.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One way of finding a call's tenant, team or traffic class: from a request header, the SLF4J
 * MDC, a system property, the calling thread's name, the calling code's package, the hashed
 * API key, or a fixed default. Rules are tried in order and the first that yields a value wins
 * (see {@link IdentityConfig}).
 */
public final class IdentityRule {
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern PACKAGE = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");

    /** Where a rule looks. Config names are the YAML keys. */
    public enum Kind implements ConfigNamed {
        /** A request header (case-insensitive name). */
        HEADER("header"),
        /** A key of the SLF4J MDC of the calling thread. */
        MDC("mdc"),
        /** A JVM system property: one value for the whole process. */
        SYSTEM_PROPERTY("systemProperty"),
        /** A regex over the calling thread's name. */
        THREAD_NAME("threadName"),
        /** The package of the code that made the call, mapped to a value by longest prefix. */
        CALLING_PACKAGE("callingPackage"),
        /** The short hash of the request's API key (never the key itself). */
        API_KEY_ID("apiKeyId"),
        /** A fixed value; always yields, so rules after it are never reached. */
        DEFAULT("default");

        private final String configName;

        Kind(String configName) {
            this.configName = configName;
        }

        @Override
        public String configName() {
            return configName;
        }

        @Override
        public String toString() {
            return configName;
        }

        /** The kind with this config name, or null. */
        public static Kind fromConfigName(String name) {
            return ConfigNamed.named(values(), name);
        }
    }

    private final Kind kind;
    private final String argument;
    private final Map<String, String> packageValues;
    private final Pattern pattern;
    private final boolean hasValueGroup;

    private IdentityRule(Kind kind, String argument, Map<String, String> packageValues) {
        this.kind = kind;
        this.argument = argument;
        this.packageValues = packageValues == null
                ? Collections.emptyMap()
                : Collections.unmodifiableMap(new LinkedHashMap<>(packageValues));
        Pattern p = null;
        if (kind == Kind.THREAD_NAME && argument != null) {
            try {
                p = Pattern.compile(argument);
            } catch (PatternSyntaxException invalid) {
                p = null; // reported by validate()
            }
        }
        this.pattern = p;
        this.hasValueGroup = argument != null && argument.contains("(?<value>");
    }

    static IdentityRule unchecked(Kind kind, String argument, Map<String, String> packageValues) {
        return new IdentityRule(kind, argument, packageValues);
    }

    private static IdentityRule checked(Kind kind, String argument, Map<String, String> packageValues) {
        IdentityRule r = new IdentityRule(kind, argument, packageValues);
        Issues issues = new Issues();
        r.validate("", issues);
        issues.throwIfAny(kind + " rule");
        return r;
    }

    /** The value of this request header. */
    public static IdentityRule header(String name) {
        return checked(Kind.HEADER, Objects.requireNonNull(name, "name"), null);
    }

    /** The value of this SLF4J MDC key on the calling thread. */
    public static IdentityRule mdc(String key) {
        return checked(Kind.MDC, Objects.requireNonNull(key, "key"), null);
    }

    /** The value of this system property. */
    public static IdentityRule systemProperty(String name) {
        return checked(Kind.SYSTEM_PROPERTY, Objects.requireNonNull(name, "name"), null);
    }

    /** A regex over the thread name: the named group {@code value}, else group 1, else the whole match. */
    public static IdentityRule threadName(String regex) {
        return checked(Kind.THREAD_NAME, Objects.requireNonNull(regex, "regex"), null);
    }

    /** Package prefix of the calling code to value ({@code com.acme.search -> search}); longest prefix wins. */
    public static IdentityRule callingPackage(Map<String, String> prefixToValue) {
        return checked(Kind.CALLING_PACKAGE, null, Objects.requireNonNull(prefixToValue, "prefixToValue"));
    }

    /** The short hash of the request's API key. */
    public static IdentityRule apiKeyId() {
        return checked(Kind.API_KEY_ID, null, null);
    }

    /** Always this value. */
    public static IdentityRule defaultValue(String value) {
        return checked(Kind.DEFAULT, Objects.requireNonNull(value, "value"), null);
    }

    public Kind kind() {
        return kind;
    }

    /**
     * The header name, MDC key, property name, regex or default value; null for
     * {@link Kind#CALLING_PACKAGE} and {@link Kind#API_KEY_ID}.
     */
    public String argument() {
        return argument;
    }

    /** For {@link Kind#THREAD_NAME}: the compiled regex; else null. */
    public Pattern threadNamePattern() {
        return pattern;
    }

    /** For {@link Kind#CALLING_PACKAGE}: package prefix to value, in declaration order; else empty. */
    public Map<String, String> packageValues() {
        return packageValues;
    }

    /**
     * For a thread-name rule, the value it extracts from this thread name (named group
     * {@code value}, else group 1, else the whole match), or null when it does not match.
     */
    public String valueFromThreadName(String threadName) {
        if (pattern == null || threadName == null) {
            return null;
        }
        Matcher m = pattern.matcher(threadName);
        if (!m.find()) {
            return null;
        }
        String v = hasValueGroup ? m.group("value") : m.groupCount() >= 1 ? m.group(1) : m.group();
        return v == null || v.isEmpty() ? null : v;
    }

    /**
     * For a calling-package rule, the value for code in this class (fully qualified name), by
     * the longest matching package prefix, or null. {@code com.acme.search} matches
     * {@code com.acme.search.Api} and {@code com.acme.search.v2.Api}, not {@code com.acme.searchx.Api}.
     */
    public String valueForClass(String className) {
        if (className == null) {
            return null;
        }
        String best = null;
        int bestLength = -1;
        for (Map.Entry<String, String> e : packageValues.entrySet()) {
            String prefix = e.getKey();
            boolean matches = className.startsWith(prefix)
                    && (className.length() == prefix.length() || className.charAt(prefix.length()) == '.');
            if (matches && prefix.length() > bestLength) {
                best = e.getValue();
                bestLength = prefix.length();
            }
        }
        return best;
    }

    void validate(String path, Issues issues) {
        if (kind == null) {
            return; // the loader already reported why this rule could not be read
        }
        String p = Issues.join(path, kind.configName());
        switch (kind) {
            case HEADER:
                if (argument == null || !HEADER_NAME.matcher(argument).matches()) {
                    issues.add(p, argument, Issues.render(argument) + " is not a valid header name");
                }
                break;
            case MDC:
            case SYSTEM_PROPERTY:
            case DEFAULT:
                if (argument == null || argument.trim().isEmpty()) {
                    issues.add(p, argument, "must not be empty");
                }
                break;
            case THREAD_NAME:
                try {
                    Pattern.compile(argument == null ? "" : argument);
                } catch (PatternSyntaxException e) {
                    issues.add(
                            p,
                            argument,
                            Issues.render(argument) + " is not a valid regular expression: " + e.getDescription()
                                    + (e.getIndex() >= 0 ? " near index " + e.getIndex() : ""));
                }
                break;
            case CALLING_PACKAGE:
                if (packageValues.isEmpty()) {
                    issues.add(p, null, "needs at least one package prefix: value entry");
                }
                for (Map.Entry<String, String> e : packageValues.entrySet()) {
                    if (!PACKAGE.matcher(e.getKey()).matches()) {
                        issues.add(
                                Issues.join(p, e.getKey()),
                                e.getKey(),
                                Issues.render(e.getKey()) + " is not a package name");
                    } else if (e.getValue() == null || e.getValue().trim().isEmpty()) {
                        issues.add(Issues.join(p, e.getKey()), e.getValue(), "the value must not be empty");
                    }
                }
                break;
            default:
                break;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof IdentityRule)) {
            return false;
        }
        IdentityRule r = (IdentityRule) o;
        return kind == r.kind && Objects.equals(argument, r.argument) && packageValues.equals(r.packageValues);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, argument, packageValues);
    }

    @Override
    public String toString() {
        if (kind == Kind.API_KEY_ID) {
            return "apiKeyId";
        }
        return kind + "=" + (kind == Kind.CALLING_PACKAGE ? packageValues.toString() : argument);
    }
}
