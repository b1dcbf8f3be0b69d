package dev.sluice.core.price;

import dev.sluice.config.PriceConfig;
import dev.sluice.config.ProviderKind;
import dev.sluice.config.SluiceConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The price table a governor counts spend with: Sluice's built-in table of list prices ({@link
 * PriceConfig#defaults()}), then the config's {@code prices:}, which replace built-in entries of
 * the same model and provider and add others. The built-in table is in USD and applies only when
 * the config's {@link SluiceConfig#currency() currency} is USD; in another currency only the
 * config's own entries price anything. Immutable, thread-safe.
 *
 * <h2>Which entry prices a call</h2>
 *
 * {@link #priceOf} looks first among entries restricted to the call's provider (its configured
 * name, then its kind), then among entries for any provider. Within each, the model name matches
 * an entry's model or alias exactly (case-insensitively), or else the model is a known family
 * followed only by a snapshot or version suffix: date parts ({@code -2024-07-18}, {@code
 * -20241022}, {@code -05-20}), numbered versions ({@code -001}, {@code -v2}), {@code -latest},
 * {@code -preview}, {@code -exp}. The longest such family wins, so {@code gpt-4o-mini-2024-07-18}
 * is gpt-4o-mini and {@code claude-sonnet-4-5-20250929} is claude-sonnet-4-5. A suffix with a word
 * in it names another model, priced differently, and is not stripped: {@code o3-pro} is not o3,
 * {@code gpt-4o-audio-preview} not gpt-4o; such models are unknown (null) until the config
 * prices them. A path before the name ({@code models/gemini-2.5-pro}, {@code
 * publishers/google/models/...}) and a Vertex AI version after {@code @} are ignored.
 *
 * <p>The lookup is on every call's path, so resolutions are remembered per provider and model
 * name, unknown models included; each provider's memory holds at most {@value #CACHE_LIMIT} model
 * names and starts over when full (model names come from requests, so an application sending
 * arbitrary ones must not grow it without bound).
 */
public final class Prices {
    static final int CACHE_LIMIT = 1024;

    /** What the cache holds for a model no entry prices. */
    private static final Object UNKNOWN = new Object();

    private static final String ANY = "";

    private final String currency;
    private final String asOf;
    private final String source;
    /** Restriction (a provider name or kind; {@link #ANY} for none) to lower-case name to price. */
    private final Map<String, Map<String, Price>> byRestriction;
    /** Per kind (the last slot for calls with no kind): provider name ("" for none) to model to Price or UNKNOWN. */
    private final List<ConcurrentHashMap<String, ConcurrentHashMap<String, Object>>> cache;

    private Prices(String currency, String asOf, String source, Map<String, Map<String, Price>> byRestriction) {
        this.currency = currency;
        this.asOf = asOf;
        this.source = source;
        this.byRestriction = byRestriction;
        List<ConcurrentHashMap<String, ConcurrentHashMap<String, Object>>> c = new ArrayList<>();
        for (int i = 0; i <= ProviderKind.values().length; i++) {
            c.add(new ConcurrentHashMap<>());
        }
        this.cache = c;
    }

    /** The built-in table alone, in USD. */
    public static Prices defaults() {
        return of(SluiceConfig.defaults());
    }

    /**
     * The table for this config: the built-in entries (when the config's currency is theirs),
     * replaced and completed by the config's own. Entries that could not price anything (no
     * model, a negative price: a validated config has none) are left out.
     */
    public static Prices of(SluiceConfig config) {
        boolean defaultsApply = PriceConfig.defaultsCurrency() != null
                && PriceConfig.defaultsCurrency().equalsIgnoreCase(config.currency());
        // Keyed by restriction and model: a config entry replaces the built-in one, aliases included.
        Map<String, PriceConfig> builtIn = new LinkedHashMap<>();
        if (defaultsApply) {
            for (PriceConfig p : PriceConfig.defaults()) {
                if (usable(p)) {
                    builtIn.put(key(p), p);
                }
            }
        }
        Map<String, PriceConfig> own = new LinkedHashMap<>();
        for (PriceConfig p : config.prices()) {
            if (usable(p)) {
                builtIn.remove(key(p));
                own.put(key(p), p);
            }
        }
        Map<String, Map<String, Price>> index = new HashMap<>();
        // Built-in names first, so a name the config gives (as a model or an alias) wins.
        for (Map<String, PriceConfig> entries : List.of(builtIn, own)) {
            for (PriceConfig p : entries.values()) {
                Map<String, Price> names = index.get(restriction(p));
                if (names == null) { // not computeIfAbsent(key, lambda): read at start-up, see Setting.Field
                    names = new HashMap<>();
                    index.put(restriction(p), names);
                }
                Price price = Price.of(p);
                names.put(normalise(p.model()), price);
                for (String alias : p.aliases()) {
                    if (!alias.trim().isEmpty()) {
                        names.put(normalise(alias), price);
                    }
                }
            }
        }
        return new Prices(
                config.currency(),
                defaultsApply ? PriceConfig.defaultsAsOf() : null,
                defaultsApply ? PriceConfig.defaultsSource() : null,
                index);
    }

    private static boolean usable(PriceConfig p) {
        return p.model() != null
                && !p.model().trim().isEmpty()
                && validPrice(p.input())
                && validPrice(p.cachedInput())
                && validPrice(p.cacheWrite())
                && validPrice(p.output());
    }

    private static boolean validPrice(double d) {
        return d >= 0 && !Double.isInfinite(d);
    }

    private static String restriction(PriceConfig p) {
        return p.provider() == null ? ANY : p.provider();
    }

    private static String key(PriceConfig p) {
        return restriction(p) + '\u0000' + normalise(p.model());
    }

    /**
     * Whether {@link dev.sluice.core.Usage#inputTokens()} of this kind's calls includes the tokens
     * read from the cache: true for every kind but Anthropic, which reports cache reads apart and
     * counts cache writes in its input, and Bedrock, which reports them the same way. What {@link
     * Price#costMicros} needs to know.
     */
    public static boolean inputCountsCacheReads(ProviderKind kind) {
        return kind != ProviderKind.ANTHROPIC && kind != ProviderKind.BEDROCK;
    }

    /**
     * The price of a call, or null when no entry prices its model (or the model is null).
     *
     * @param providerName the configured provider's name, or null
     * @param kind the provider's kind, or null
     * @param model the model as the request names it
     */
    public Price priceOf(String providerName, ProviderKind kind, String model) {
        if (model == null) {
            return null;
        }
        ConcurrentHashMap<String, ConcurrentHashMap<String, Object>> perKind =
                cache.get(kind == null ? cache.size() - 1 : kind.ordinal());
        String name = providerName == null ? ANY : providerName;
        ConcurrentHashMap<String, Object> perProvider = perKind.get(name);
        if (perProvider == null) {
            perProvider = new ConcurrentHashMap<>(); // not computeIfAbsent(key, lambda): see Setting.Field
            ConcurrentHashMap<String, Object> raced = perKind.putIfAbsent(name, perProvider);
            if (raced != null) {
                perProvider = raced;
            }
        }
        Object known = perProvider.get(model);
        if (known == null) {
            Price resolved = resolve(providerName, kind, model);
            known = resolved == null ? UNKNOWN : resolved;
            if (perProvider.size() >= CACHE_LIMIT) {
                perProvider.clear();
            }
            perProvider.put(model, known);
        }
        return known == UNKNOWN ? null : (Price) known;
    }

    private Price resolve(String providerName, ProviderKind kind, String model) {
        String name = normalise(model);
        if (name.isEmpty()) {
            return null;
        }
        if (providerName != null) {
            Price p = lookup(byRestriction.get(providerName), name);
            if (p != null) {
                return p;
            }
        }
        if (kind != null && !kind.configName().equals(providerName)) {
            Price p = lookup(byRestriction.get(kind.configName()), name);
            if (p != null) {
                return p;
            }
        }
        return lookup(byRestriction.get(ANY), name);
    }

    /** The exact name, else the longest family the name is followed only by a version suffix of. */
    private static Price lookup(Map<String, Price> names, String name) {
        if (names == null) {
            return null;
        }
        Price exact = names.get(name);
        if (exact != null) {
            return exact;
        }
        int end = name.length();
        for (int dash = name.lastIndexOf('-'); dash > 0; dash = name.lastIndexOf('-', dash - 1)) {
            if (!isVersion(name, dash + 1, end)) {
                return null; // this part, and so every longer suffix, names another model
            }
            Price family = names.get(name.substring(0, dash));
            if (family != null) {
                return family;
            }
            end = dash;
        }
        return null;
    }

    /**
     * Whether {@code name[from, to)} is one part of a snapshot or version suffix: two or more
     * digits (dates, {@code 001}), {@code v} and digits, {@code latest}, {@code preview}, {@code
     * exp}. A single digit is not: {@code claude-opus-4-5} is not a version of claude-opus-4.
     */
    static boolean isVersion(String name, int from, int to) {
        int length = to - from;
        if (length <= 0) {
            return false;
        }
        if (allDigits(name, from, to)) {
            return length >= 2;
        }
        if (name.charAt(from) == 'v' && length >= 2 && allDigits(name, from + 1, to)) {
            return true;
        }
        return name.regionMatches(from, "latest", 0, length) && length == 6
                || name.regionMatches(from, "preview", 0, length) && length == 7
                || name.regionMatches(from, "exp", 0, length) && length == 3;
    }

    private static boolean allDigits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** Lower case, without a path before the name or a Vertex AI {@code @version} after it. */
    static String normalise(String model) {
        String m = model.trim();
        int slash = m.lastIndexOf('/');
        if (slash >= 0) {
            m = m.substring(slash + 1);
        }
        int at = m.indexOf('@');
        if (at >= 0) {
            m = m.substring(0, at);
        }
        return m.toLowerCase(Locale.ROOT);
    }

    /** How many resolutions are remembered, for tests. */
    int cachedNames() {
        int n = 0;
        for (ConcurrentHashMap<String, ConcurrentHashMap<String, Object>> perKind : cache) {
            for (ConcurrentHashMap<String, Object> perProvider : perKind.values()) {
                n += perProvider.size();
            }
        }
        return n;
    }

    /** The unit of every price and amount: the config's {@link SluiceConfig#currency()}. */
    public String currency() {
        return currency;
    }

    /** The date of the built-in table ({@code 2026-12-01}); null when the currency leaves it out. */
    public String asOf() {
        return asOf;
    }

    /** Where the built-in table's prices come from; null when the currency leaves it out. */
    public String source() {
        return source;
    }

    /** Whether the built-in table is part of this one (the config's currency is USD). */
    public boolean includesDefaults() {
        return asOf != null;
    }

    @Override
    public String toString() {
        int names = 0;
        for (Map<String, Price> m : byRestriction.values()) {
            names += m.size();
        }
        return "Prices{" + currency + ", " + names + " model names"
                + (asOf != null ? ", built-in table of " + asOf : ", no built-in table") + "}";
    }
}
