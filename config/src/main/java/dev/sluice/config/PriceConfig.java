package dev.sluice.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The list price of one model family, per million tokens in the config's {@link
 * SluiceConfig#currency() currency}: what Sluice counts a call's spend with. Sluice ships a dated
 * table of the providers' public prices ({@link #defaults()}); entries of the config's {@code
 * prices:} replace those of the same model and provider, and add others (a model missing from
 * the table, a negotiated price, an Azure deployment name as an alias).
 *
 * <p>{@link #model()} names a family ({@code gpt-4o-mini}, {@code claude-sonnet-4-5}): calls to a
 * dated snapshot of it ({@code gpt-4o-mini-2024-07-18}, {@code claude-sonnet-4-5-20250929}) are
 * priced by it. Cache reads and Anthropic's cache writes have their own prices, the input price
 * when not given.
 */
public final class PriceConfig {
    private final String model;
    private final String provider;
    private final Double input;
    private final Double cachedInput;
    private final Double cacheWrite;
    private final Double output;
    private final List<String> aliases;

    private PriceConfig(Builder b) {
        this.model = b.model;
        this.provider = b.provider;
        this.input = b.input;
        this.cachedInput = b.cachedInput;
        this.cacheWrite = b.cacheWrite;
        this.output = b.output;
        this.aliases = List.copyOf(b.aliases);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A price for this model: input and output per million tokens; cache prices are the input price. */
    public static PriceConfig of(String model, double input, double output) {
        return builder().model(model).input(input).output(output).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.model = model;
        b.provider = provider;
        b.input = input;
        b.cachedInput = cachedInput;
        b.cacheWrite = cacheWrite;
        b.output = output;
        b.aliases = new ArrayList<>(aliases);
        return b;
    }

    /**
     * The built-in table of the providers' list prices (standard tier, in USD per million tokens),
     * dated {@link #defaultsAsOf()}. Prices change: entries in the config override these. Empty
     * only if the table shipped in the jar cannot be read, which the build's tests rule out.
     */
    public static List<PriceConfig> defaults() {
        return DefaultPrices.TABLE.entries;
    }

    /** The date the built-in table was written: {@code 2026-12-01}. */
    public static String defaultsAsOf() {
        return DefaultPrices.TABLE.asOf;
    }

    /** Where the built-in table's prices come from: the providers' public pricing pages. */
    public static String defaultsSource() {
        return DefaultPrices.TABLE.source;
    }

    /** The currency the built-in table is in: {@code USD}. */
    public static String defaultsCurrency() {
        return DefaultPrices.TABLE.currency;
    }

    /** The model family priced (matched case-insensitively, dated snapshots included). */
    public String model() {
        return model;
    }

    /**
     * The provider this price is restricted to: a provider kind ({@code openai}, {@code
     * anthropic}, {@code gemini}...) or a configured provider's name; null for calls to any provider.
     */
    public String provider() {
        return provider;
    }

    /** Price of a million input tokens. */
    public double input() {
        return input == null ? Double.NaN : input;
    }

    /** Price of a million input tokens read from the provider's cache; the input price unless set. */
    public double cachedInput() {
        return cachedInput != null ? cachedInput : input();
    }

    /** Price of a million input tokens written to the provider's cache (Anthropic); the input price unless set. */
    public double cacheWrite() {
        return cacheWrite != null ? cacheWrite : input();
    }

    /** Price of a million output tokens, reasoning tokens included. */
    public double output() {
        return output == null ? Double.NaN : output;
    }

    /** Other model names priced by this entry, such as an Azure OpenAI deployment's name. */
    public List<String> aliases() {
        return aliases;
    }

    void validate(String path, Issues issues) {
        if (model == null) {
            issues.missing(Issues.join(path, "model"));
        } else if (model.trim().isEmpty()) {
            issues.add(Issues.join(path, "model"), model, "must not be empty");
        }
        if (provider != null && provider.trim().isEmpty()) {
            issues.add(
                    Issues.join(path, "provider"), provider, "must not be empty; leave it out to price any provider");
        }
        checkPrice(input, true, Issues.join(path, "input"), issues);
        checkPrice(cachedInput, false, Issues.join(path, "cachedInput"), issues);
        checkPrice(cacheWrite, false, Issues.join(path, "cacheWrite"), issues);
        checkPrice(output, true, Issues.join(path, "output"), issues);
        for (int i = 0; i < aliases.size(); i++) {
            if (aliases.get(i).trim().isEmpty()) {
                issues.add(Issues.index(path, "aliases", i), aliases.get(i), "must not be empty");
            }
        }
    }

    private static void checkPrice(Double price, boolean required, String path, Issues issues) {
        if (price == null) {
            if (required) {
                issues.missing(path);
            }
            return;
        }
        issues.check(price >= 0 && Double.isFinite(price), path, price, ">= 0");
    }

    /**
     * Each model name or alias is priced once per provider restriction: two entries for one name
     * would leave the price depending on their order. Names compare case-insensitively, as calls
     * are matched.
     */
    static void checkNames(List<PriceConfig> prices, String listPath, Issues issues) {
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < prices.size(); i++) {
            PriceConfig p = prices.get(i);
            String path = Issues.index("", listPath, i);
            String restriction = p.provider == null ? "" : p.provider;
            for (int n = -1; n < p.aliases.size(); n++) {
                String name = n < 0 ? p.model : p.aliases.get(n);
                if (name == null || name.trim().isEmpty()) {
                    continue;
                }
                String key = restriction + '\u0000' + name.trim().toLowerCase(Locale.ROOT);
                String where = n < 0 ? path + ".model" : Issues.index(path, "aliases", n);
                String first = seen.putIfAbsent(key, where);
                if (first != null) {
                    issues.add(
                            where,
                            name,
                            Issues.render(name) + " is already priced by " + first
                                    + (p.provider == null ? "" : " for provider " + p.provider));
                }
            }
        }
    }

    /** The names this entry prices: the model, then the aliases. */
    List<String> names() {
        List<String> names = new ArrayList<>(1 + aliases.size());
        if (model != null) {
            names.add(model);
        }
        names.addAll(aliases);
        return names;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PriceConfig)) {
            return false;
        }
        PriceConfig p = (PriceConfig) o;
        return Objects.equals(model, p.model)
                && Objects.equals(provider, p.provider)
                && Objects.equals(input, p.input)
                && Objects.equals(cachedInput, p.cachedInput)
                && Objects.equals(cacheWrite, p.cacheWrite)
                && Objects.equals(output, p.output)
                && aliases.equals(p.aliases);
    }

    @Override
    public int hashCode() {
        return Objects.hash(model, provider, input, cachedInput, cacheWrite, output, aliases);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("PriceConfig{").append(model);
        if (provider != null) {
            b.append(", provider=").append(provider);
        }
        b.append(", input=").append(render(input));
        if (cachedInput != null) {
            b.append(", cachedInput=").append(render(cachedInput));
        }
        if (cacheWrite != null) {
            b.append(", cacheWrite=").append(render(cacheWrite));
        }
        b.append(", output=").append(render(output));
        if (!aliases.isEmpty()) {
            b.append(", aliases=").append(aliases);
        }
        return b.append('}').toString();
    }

    private static String render(Double d) {
        return d == null ? "null" : Issues.number(d);
    }

    /** Builds a {@link PriceConfig}: model, input and output are required. */
    public static final class Builder {
        String model;
        String provider;
        Double input;
        Double cachedInput;
        Double cacheWrite;
        Double output;
        List<String> aliases = new ArrayList<>();

        private Builder() {}

        public Builder model(String model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /** Restricts the price to a provider kind or a configured provider's name; null for any provider. */
        public Builder provider(String provider) {
            this.provider = provider;
            return this;
        }

        public Builder input(double input) {
            this.input = input;
            return this;
        }

        public Builder cachedInput(double cachedInput) {
            this.cachedInput = cachedInput;
            return this;
        }

        public Builder cacheWrite(double cacheWrite) {
            this.cacheWrite = cacheWrite;
            return this;
        }

        public Builder output(double output) {
            this.output = output;
            return this;
        }

        public Builder aliases(List<String> aliases) {
            this.aliases = new ArrayList<>(Objects.requireNonNull(aliases, "aliases"));
            return this;
        }

        public Builder alias(String alias) {
            this.aliases.add(Objects.requireNonNull(alias, "alias"));
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public PriceConfig build() {
            PriceConfig p = new PriceConfig(this);
            Issues issues = new Issues();
            p.validate("", issues);
            issues.throwIfAny("price " + model);
            return p;
        }

        PriceConfig buildUnchecked() {
            return new PriceConfig(this);
        }
    }
}
