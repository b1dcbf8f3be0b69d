package dev.sluice.core.provider;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a configured provider tells its adapter that the protocol cannot: over which window its
 * request and token budget headers count (Groq's request budget is per day, not per minute), and
 * whether its token limiter settles to what calls really used. Only the adapters of kinds without a
 * public host ({@code openai-compatible}, {@code fixed-window-gateway}) read them; the others know
 * their provider. Immutable.
 *
 * <p>Config passes them as a flat map of strings ({@link #fromOptions}), e.g. a provider entry's
 * {@code options: {requestsWindow: 1d}}, so the config module needs no type per adapter.
 */
public final class AdapterSettings {

    /** Option: the window of {@code x-ratelimit-*-requests} ({@code 60s} unless set; {@code 1d} for Groq). */
    public static final String REQUESTS_WINDOW = "requestsWindow";
    /** Option: the window of {@code x-ratelimit-*-tokens} ({@code 60s} unless set). */
    public static final String TOKENS_WINDOW = "tokensWindow";
    /** Option: whether token budgets settle to actual usage ({@code true} unless set) or keep the admission charge. */
    public static final String TRUES_UP_TOKENS = "truesUpTokens";

    private static final AdapterSettings DEFAULTS = builder().build();
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private final LongSupplier wallClockMillis;
    private final Duration requestsWindow;
    private final Duration tokensWindow;
    private final boolean truesUpTokens;

    private AdapterSettings(Builder b) {
        this.wallClockMillis = b.wallClockMillis;
        this.requestsWindow = b.requestsWindow;
        this.tokensWindow = b.tokensWindow;
        this.truesUpTokens = b.truesUpTokens;
    }

    /** Per-minute budgets, tokens trued up, the system wall clock. */
    public static AdapterSettings defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Settings from a provider's options map: {@value #REQUESTS_WINDOW} and {@value #TOKENS_WINDOW}
     * ({@code 500ms}, {@code 60s}, {@code 1m}, {@code 24h}, {@code 1d} or ISO 8601 {@code PT24H}),
     * {@value #TRUES_UP_TOKENS} ({@code true}/{@code false}).
     *
     * @throws IllegalArgumentException naming the option and what is valid, for an unknown key or a bad value
     */
    public static AdapterSettings fromOptions(Map<String, String> options) {
        Builder b = builder();
        if (options == null) {
            return b.build();
        }
        for (Map.Entry<String, String> e : options.entrySet()) {
            String key = e.getKey();
            String value = e.getValue() == null ? "" : e.getValue().trim();
            if (REQUESTS_WINDOW.equals(key)) {
                b.requestsWindow(duration(key, value));
            } else if (TOKENS_WINDOW.equals(key)) {
                b.tokensWindow(duration(key, value));
            } else if (TRUES_UP_TOKENS.equals(key)) {
                if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                    throw new IllegalArgumentException(key + ": \"" + value + "\" is not true or false");
                }
                b.truesUpTokens(Boolean.parseBoolean(value.toLowerCase(Locale.ROOT)));
            } else {
                throw new IllegalArgumentException("unknown adapter option \"" + key + "\"; valid options are "
                        + REQUESTS_WINDOW + ", " + TOKENS_WINDOW + ", " + TRUES_UP_TOKENS);
            }
        }
        return b.build();
    }

    /** Epoch milliseconds, read only to date wait hints the adapter writes or finds inside streams. */
    public LongSupplier wallClockMillis() {
        return wallClockMillis;
    }

    public Duration requestsWindow() {
        return requestsWindow;
    }

    public Duration tokensWindow() {
        return tokensWindow;
    }

    public boolean truesUpTokens() {
        return truesUpTokens;
    }

    /** The settings as options, for JMX and logs. */
    public Map<String, String> asOptions() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(REQUESTS_WINDOW, requestsWindow.toString());
        m.put(TOKENS_WINDOW, tokensWindow.toString());
        m.put(TRUES_UP_TOKENS, Boolean.toString(truesUpTokens));
        return Collections.unmodifiableMap(m);
    }

    @Override
    public String toString() {
        return "AdapterSettings" + asOptions();
    }

    private static Duration duration(String key, String value) {
        Matcher m = SIMPLE_DURATION.matcher(value.toLowerCase(Locale.ROOT));
        Duration d = null;
        if (m.matches() && m.group(1).length() <= 12) {
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "ms":
                    d = Duration.ofMillis(n);
                    break;
                case "s":
                    d = Duration.ofSeconds(n);
                    break;
                case "m":
                    d = Duration.ofMinutes(n);
                    break;
                case "h":
                    d = Duration.ofHours(n);
                    break;
                default:
                    d = Duration.ofDays(n);
            }
        } else {
            try {
                d = Duration.parse(value.toUpperCase(Locale.ROOT));
            } catch (RuntimeException notIso) {
                d = null;
            }
        }
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(
                    key + ": \"" + value + "\" is not a positive duration such as 60s, 1m, 24h, 1d or PT24H");
        }
        return d;
    }

    /** Builds {@link AdapterSettings}. */
    public static final class Builder {
        private LongSupplier wallClockMillis = System::currentTimeMillis;
        private Duration requestsWindow = Duration.ofMinutes(1);
        private Duration tokensWindow = Duration.ofMinutes(1);
        private boolean truesUpTokens = true;

        private Builder() {}

        public Builder wallClockMillis(LongSupplier v) {
            this.wallClockMillis = Objects.requireNonNull(v, "wallClockMillis");
            return this;
        }

        public Builder requestsWindow(Duration v) {
            this.requestsWindow = positive(v, REQUESTS_WINDOW);
            return this;
        }

        public Builder tokensWindow(Duration v) {
            this.tokensWindow = positive(v, TOKENS_WINDOW);
            return this;
        }

        public Builder truesUpTokens(boolean v) {
            this.truesUpTokens = v;
            return this;
        }

        public AdapterSettings build() {
            return new AdapterSettings(this);
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
            }
            return d;
        }
    }
}
