package dev.sluice.core.price;

import dev.sluice.config.PriceConfig;
import dev.sluice.config.PriceTable;
import dev.sluice.config.ProviderKind;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.LazyLogger;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The price table a governor counts spend with, in three layers: Sluice's built-in table of list
 * prices ({@link PriceConfig#defaults()}); the table of the config's {@link
 * SluiceConfig#pricesFile() pricesFile} (LiteLLM's JSON, say), whose entries replace built-in ones
 * of the same model and provider and add others; then the config's own {@code prices:}, which
 * replace both. A table applies only when the config's {@link SluiceConfig#currency() currency} is
 * its own (the built-in table and LiteLLM's are in USD); in another currency only the config's
 * own entries price anything. The built-in table's service tier factors (flex and batch half
 * price, priority double) apply to every entry that sets none of its own. Immutable, thread-safe.
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
 * publishers/google/models/...}, an ARN) and a Vertex AI version after {@code @} are ignored.
 *
 * <p>Bedrock's model ids name a vendor and a version ({@code anthropic.claude-sonnet-4-5-20250929-v1:0}),
 * and its cross-region inference profiles a region before them ({@code us.}, {@code eu.}, {@code
 * apac.}, {@code global.}). Such an id is priced by an entry of its own if there is one, else
 * without its region, else without its vendor: {@code
 * global.anthropic.claude-sonnet-4-5-20250929-v1:0} is claude-sonnet-4-5 unless a table prices the
 * Bedrock id itself. A leading word of letters and a dot is such a prefix; model names with a dot
 * in a version ({@code gpt-4.1}, {@code gemini-2.5-pro}) have a digit before it.
 *
 * <p>The lookup is on every call's path, so resolutions are remembered per provider and model
 * name, unknown models included; each provider's memory holds at most {@value #CACHE_LIMIT} model
 * names and starts over when full (model names come from requests, so an application sending
 * arbitrary ones must not grow it without bound).
 */
public final class Prices {
    static final int CACHE_LIMIT = 1024;

    private static final LazyLogger LOG = LazyLogger.of(Prices.class);

    /** Problems of a pricesFile named in its log line; the rest are counted. */
    private static final int PROBLEMS_LOGGED = 5;

    /** What the cache holds for a model no entry prices. */
    private static final Object UNKNOWN = new Object();

    private static final String ANY = "";

    private final String currency;
    private final String asOf;
    private final String source;
    /** The pricesFile's table when it applies, for what the table says of itself; else null. */
    private final PriceTable file;
    /** Why the pricesFile named prices nothing, or null. */
    private final String fileUnused;
    /** Entries of the config's own. */
    private final int ownEntries;
    /** Restriction (a provider name or kind; {@link #ANY} for none) to lower-case name to price. */
    private final Map<String, Map<String, Price>> byRestriction;
    /** Per kind (the last slot for calls with no kind): provider name ("" for none) to model to Price or UNKNOWN. */
    private final List<ConcurrentHashMap<String, ConcurrentHashMap<String, Object>>> cache;

    private Prices(
            String currency,
            String asOf,
            String source,
            PriceTable file,
            String fileUnused,
            int ownEntries,
            Map<String, Map<String, Price>> byRestriction) {
        this.currency = currency;
        this.asOf = asOf;
        this.source = source;
        this.file = file;
        this.fileUnused = fileUnused;
        this.ownEntries = ownEntries;
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
     * The table for this config: the built-in entries, then the pricesFile's (each when the config's
     * currency is theirs), replaced and completed by the config's own. Entries that could not
     * price anything (no model, a negative price: a validated config has none) are left out. The
     * pricesFile is read here, as the table is built: a file that cannot be used prices nothing,
     * is logged, and {@link #describeTables()} says why.
     */
    public static Prices of(SluiceConfig config) {
        Map<String, Double> builtInTiers = PriceConfig.defaultServiceTiers();
        boolean defaultsApply = PriceConfig.defaultsCurrency() != null
                && PriceConfig.defaultsCurrency().equalsIgnoreCase(config.currency());
        PriceTable file = null;
        String fileUnused = null;
        String fileName = config.pricesFile().trim();
        if (!fileName.isEmpty()) {
            try {
                file = PriceTable.read(Paths.get(fileName));
            } catch (IOException | RuntimeException e) {
                fileUnused = e.getMessage();
                LOG.get()
                        .warn(
                                "sluice: pricesFile {} prices nothing: {}; calls are priced by the built-in table and"
                                        + " the config's own prices",
                                fileName,
                                fileUnused);
            }
        }
        boolean fileApplies =
                file != null && file.currency() != null && file.currency().equalsIgnoreCase(config.currency());
        if (file != null) {
            logWhatIsNotUsed(file, fileApplies, config.currency());
            if (!fileApplies) {
                fileUnused = "its prices are in " + file.currency() + ", spend limits in " + config.currency();
            }
        }
        Map<String, Double> fileTiers = builtInTiers;
        if (fileApplies && !file.serviceTiers().isEmpty()) {
            fileTiers = new HashMap<>(builtInTiers);
            fileTiers.putAll(file.serviceTiers());
        }
        // Keyed by restriction and model: a later layer's entry replaces an earlier one, aliases included.
        Map<String, Layered> entries = new LinkedHashMap<>();
        if (defaultsApply) {
            layer(entries, PriceConfig.defaults(), builtInTiers, 0);
        }
        if (fileApplies) {
            layer(entries, file.entries(), fileTiers, 1);
        }
        layer(entries, config.prices(), builtInTiers, 2);
        Map<String, Map<String, Price>> index = new HashMap<>();
        // Earlier layers' names first, so a name a later layer gives (as a model or an alias) wins.
        for (int layer = 0; layer <= 2; layer++) {
            for (Layered e : entries.values()) {
                if (e.layer != layer) {
                    continue;
                }
                PriceConfig p = e.config;
                Map<String, Price> names = index.get(restriction(p));
                if (names == null) { // not computeIfAbsent(key, lambda): read at start-up, see Setting.Field
                    names = new HashMap<>();
                    index.put(restriction(p), names);
                }
                Price price = Price.of(p, e.tiers);
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
                fileApplies ? file : null,
                fileUnused == null ? null : fileName + " prices nothing: " + fileUnused,
                config.prices().size(),
                index);
    }

    /** Says once per table read what of the pricesFile prices nothing: entries with a problem, or all of it. */
    private static void logWhatIsNotUsed(PriceTable file, boolean applies, String currency) {
        if (!applies) {
            LOG.get()
                    .warn(
                            "sluice: pricesFile {} is in {}, spend limits in {}: none of its prices is used",
                            file.source(),
                            file.currency(),
                            currency);
            return;
        }
        if (file.problems().isEmpty()) {
            return;
        }
        StringBuilder named = new StringBuilder();
        for (int i = 0; i < file.problems().size() && i < PROBLEMS_LOGGED; i++) {
            named.append("\n  ").append(file.problems().get(i));
        }
        int more = file.problems().size() - PROBLEMS_LOGGED;
        LOG.get()
                .warn(
                        "sluice: pricesFile {}: {} entries left out, their models priced by the built-in table if"
                                + " it has them, else counted as unpriced:{}{}",
                        file.source(),
                        file.problems().size(),
                        named,
                        more > 0 ? "\n  and " + more + " more" : "");
    }

    /** An entry, the service tier factors its table gives it, and the layer it comes from (built-in, file, own). */
    private static final class Layered {
        final PriceConfig config;
        final Map<String, Double> tiers;
        final int layer;

        Layered(PriceConfig config, Map<String, Double> tiers, int layer) {
            this.config = config;
            this.tiers = tiers;
            this.layer = layer;
        }
    }

    private static void layer(
            Map<String, Layered> into, List<PriceConfig> entries, Map<String, Double> tiers, int layer) {
        for (PriceConfig p : entries) {
            if (usable(p)) {
                into.remove(key(p)); // re-inserted last: its layer's turn
                into.put(key(p), new Layered(p, tiers, layer));
            }
        }
    }

    private static boolean usable(PriceConfig p) {
        if (p.model() == null
                || p.model().trim().isEmpty()
                || !validPrice(p.input())
                || !validPrice(p.cachedInput())
                || !validPrice(p.cacheWrite())
                || !validPrice(p.cacheWrite1h())
                || !validPrice(p.output())) {
            return false;
        }
        try {
            Price.of(p, Map.of()); // the long-context tier and the factors too
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
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

    /**
     * The exact name, else the longest family the name is followed only by a version suffix of;
     * then the same without a Bedrock region prefix, then without its vendor prefix.
     */
    private static Price lookup(Map<String, Price> names, String name) {
        if (names == null) {
            return null;
        }
        for (String n = name; n != null; n = withoutPrefix(n)) {
            Price exact = names.get(n);
            if (exact != null) {
                return exact;
            }
            Price family = family(names, n);
            if (family != null) {
                return family;
            }
        }
        return null;
    }

    /**
     * The name without its leading word and dot ({@code us.}, {@code anthropic.}: Bedrock's region
     * and vendor prefixes), or null when it has none. The word is letters and dashes only, so a
     * version's dot ({@code gpt-4.1}) is not taken for one.
     */
    static String withoutPrefix(String name) {
        int dot = name.indexOf('.');
        if (dot <= 0 || dot == name.length() - 1) {
            return null;
        }
        for (int i = 0; i < dot; i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c == '-')) {
                return null;
            }
        }
        return name.substring(dot + 1);
    }

    /** The longest family the name is followed only by a version suffix of. */
    private static Price family(Map<String, Price> names, String name) {
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
     * digits (dates, {@code 001}), {@code v} and digits (with Bedrock's {@code :} and digits: {@code
     * v1:0}), {@code latest}, {@code preview}, {@code exp}. A single digit is not: {@code
     * claude-opus-4-5} is not a version of claude-opus-4.
     */
    static boolean isVersion(String name, int from, int to) {
        int length = to - from;
        if (length <= 0) {
            return false;
        }
        if (allDigits(name, from, to)) {
            return length >= 2;
        }
        if (name.charAt(from) == 'v' && length >= 2) {
            int colon = name.indexOf(':', from);
            if (colon < 0 || colon >= to) {
                return allDigits(name, from + 1, to);
            }
            return colon > from + 1
                    && colon < to - 1
                    && allDigits(name, from + 1, colon)
                    && allDigits(name, colon + 1, to);
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

    /** The pricesFile's table, when it was read and prices calls; else null. */
    public PriceTable fileTable() {
        return file;
    }

    /** Whether the built-in table is part of this one (the config's currency is USD). */
    public boolean includesDefaults() {
        return asOf != null;
    }

    /**
     * Where the prices come from, for an operator: e.g. {@code built-in table of 2026-12-07;
     * /etc/sluice/prices.json (litellm, 2026-12-05, 812 models, 3 left out); 2 config entries}.
     */
    public String describeTables() {
        StringBuilder b = new StringBuilder();
        if (asOf != null) {
            b.append("built-in table of ").append(asOf);
        }
        if (file != null) {
            b.append(b.length() == 0 ? "" : "; ")
                    .append(file.source())
                    .append(" (")
                    .append(file.format())
                    .append(", ")
                    .append(file.asOf())
                    .append(", ")
                    .append(file.entries().size())
                    .append(" models")
                    .append(
                            file.problems().isEmpty()
                                    ? ""
                                    : ", " + file.problems().size() + " left out")
                    .append(')');
        }
        if (fileUnused != null) {
            b.append(b.length() == 0 ? "" : "; ").append("pricesFile ").append(fileUnused);
        }
        if (ownEntries > 0) {
            b.append(b.length() == 0 ? "" : "; ")
                    .append(ownEntries)
                    .append(ownEntries == 1 ? " config entry" : " config entries");
        }
        return b.length() == 0 ? "no prices (currency " + currency + ")" : b.toString();
    }

    @Override
    public String toString() {
        int names = 0;
        for (Map<String, Price> m : byRestriction.values()) {
            names += m.size();
        }
        return "Prices{" + currency + ", " + names + " model names, " + describeTables() + "}";
    }
}
