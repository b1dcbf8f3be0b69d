package dev.sluice.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * priced by it. Cache reads and cache writes have their own prices, the input price when not
 * given; writes to a one-hour cache (Anthropic) theirs, the cache write price when not given.
 *
 * <p>Two rules a flat price cannot hold: a {@link LongContext long-context tier} (a request whose
 * prompt is longer than a threshold is billed at other prices, all of it) and {@link
 * #serviceTiers() service tiers} (the {@code service_tier} a request asks for or an answer
 * reports: flex and batch runs cost less, priority more), as factors on every price.
 */
public final class PriceConfig {
    /** The service tiers a price may set a factor for; any other tier is billed as standard. */
    public static final List<String> SERVICE_TIERS = List.of("flex", "batch", "priority");

    private final String model;
    private final String provider;
    private final Double input;
    private final Double cachedInput;
    private final Double cacheWrite;
    private final Double cacheWrite1h;
    private final Double output;
    private final LongContext longContext;
    private final Map<String, Double> serviceTiers;
    private final List<String> aliases;

    private PriceConfig(Builder b) {
        this.model = b.model;
        this.provider = b.provider;
        this.input = b.input;
        this.cachedInput = b.cachedInput;
        this.cacheWrite = b.cacheWrite;
        this.cacheWrite1h = b.cacheWrite1h;
        this.output = b.output;
        this.longContext = b.longContext;
        this.serviceTiers = Collections.unmodifiableMap(new LinkedHashMap<>(b.serviceTiers));
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
        b.cacheWrite1h = cacheWrite1h;
        b.output = output;
        b.longContext = longContext;
        b.serviceTiers = new LinkedHashMap<>(serviceTiers);
        b.aliases = new ArrayList<>(aliases);
        return b;
    }

    /**
     * The built-in table of the providers' list prices (standard tier, in USD per million tokens),
     * dated {@link #defaultsAsOf()}. Prices change: entries in the config override these. Empty
     * only if the table shipped in the jar cannot be read, which the build's tests rule out.
     */
    public static List<PriceConfig> defaults() {
        return DefaultPrices.TABLE.entries();
    }

    /** The date the built-in table's prices were last checked against their sources. */
    public static String defaultsAsOf() {
        return DefaultPrices.TABLE.asOf();
    }

    /** Where the built-in table's prices come from: the providers' public pricing pages. */
    public static String defaultsSource() {
        return DefaultPrices.TABLE.source();
    }

    /** The currency the built-in table is in: {@code USD}. */
    public static String defaultsCurrency() {
        return DefaultPrices.TABLE.currency();
    }

    /**
     * The built-in table's service tier factors (flex and batch half price, priority double),
     * which apply to every price, built-in or not, that does not set its own.
     */
    public static Map<String, Double> defaultServiceTiers() {
        return DefaultPrices.TABLE.serviceTiers();
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

    /** Price of a million input tokens written to the provider's cache; the input price unless set. */
    public double cacheWrite() {
        return cacheWrite != null ? cacheWrite : input();
    }

    /**
     * Price of a million input tokens written to a cache kept for an hour (Anthropic's {@code ttl:
     * 1h}); the {@link #cacheWrite()} price unless set.
     */
    public double cacheWrite1h() {
        return cacheWrite1h != null ? cacheWrite1h : cacheWrite();
    }

    /** Price of a million output tokens, reasoning tokens included. */
    public double output() {
        return output == null ? Double.NaN : output;
    }

    /** The prices of a request whose prompt is longer than a threshold, or null when there is no such tier. */
    public LongContext longContext() {
        return longContext;
    }

    /**
     * Factors on every price by service tier ({@code flex}, {@code batch}, {@code priority}): 0.5 is
     * half price. A tier not set here takes the built-in table's factor ({@link
     * #defaultServiceTiers()}); empty when the entry sets none.
     */
    public Map<String, Double> serviceTiers() {
        return serviceTiers;
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
        checkPrices(input, cachedInput, cacheWrite, cacheWrite1h, output, path, issues);
        if (longContext != null) {
            longContext.validate(Issues.join(path, "longContext"), issues);
        }
        checkServiceTiers(serviceTiers, Issues.join(path, "serviceTiers"), issues);
        for (int i = 0; i < aliases.size(); i++) {
            if (aliases.get(i).trim().isEmpty()) {
                issues.add(Issues.index(path, "aliases", i), aliases.get(i), "must not be empty");
            }
        }
    }

    /** An entry's or a tier's five prices: input and output required, every one a number >= 0. */
    private static void checkPrices(
            Double input,
            Double cachedInput,
            Double cacheWrite,
            Double cacheWrite1h,
            Double output,
            String path,
            Issues issues) {
        checkPrice(input, true, Issues.join(path, "input"), issues);
        checkPrice(cachedInput, false, Issues.join(path, "cachedInput"), issues);
        checkPrice(cacheWrite, false, Issues.join(path, "cacheWrite"), issues);
        checkPrice(cacheWrite1h, false, Issues.join(path, "cacheWrite1h"), issues);
        checkPrice(output, true, Issues.join(path, "output"), issues);
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

    /** Tier names are those of {@link #SERVICE_TIERS}; factors are numbers >= 0. */
    static void checkServiceTiers(Map<String, Double> tiers, String path, Issues issues) {
        for (Map.Entry<String, Double> t : tiers.entrySet()) {
            String tier = t.getKey();
            if (!SERVICE_TIERS.contains(tier)) {
                String near = DidYouMean.nearest(tier, SERVICE_TIERS);
                issues.add(
                        Issues.join(path, tier),
                        null,
                        "unknown service tier, " + (near != null ? "did you mean " + near + "? " : "")
                                + "the tiers priced are " + String.join(", ", SERVICE_TIERS)
                                + " (standard is the price itself)");
            } else {
                Double factor = t.getValue();
                issues.check(
                        factor != null && factor >= 0 && Double.isFinite(factor),
                        Issues.join(path, tier),
                        factor,
                        "a factor >= 0 (0.5 is half price)");
            }
        }
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
                && Objects.equals(cacheWrite1h, p.cacheWrite1h)
                && Objects.equals(output, p.output)
                && Objects.equals(longContext, p.longContext)
                && serviceTiers.equals(p.serviceTiers)
                && aliases.equals(p.aliases);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                model,
                provider,
                input,
                cachedInput,
                cacheWrite,
                cacheWrite1h,
                output,
                longContext,
                serviceTiers,
                aliases);
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
        if (cacheWrite1h != null) {
            b.append(", cacheWrite1h=").append(render(cacheWrite1h));
        }
        b.append(", output=").append(render(output));
        if (longContext != null) {
            b.append(", longContext=").append(longContext);
        }
        if (!serviceTiers.isEmpty()) {
            b.append(", serviceTiers=").append(serviceTiers);
        }
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
        Double cacheWrite1h;
        Double output;
        LongContext longContext;
        Map<String, Double> serviceTiers = new LinkedHashMap<>();
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

        public Builder cacheWrite1h(double cacheWrite1h) {
            this.cacheWrite1h = cacheWrite1h;
            return this;
        }

        public Builder output(double output) {
            this.output = output;
            return this;
        }

        /** The prices of a request whose prompt is longer than the tier's threshold; null for none. */
        public Builder longContext(LongContext longContext) {
            this.longContext = longContext;
            return this;
        }

        /** The factor on every price for calls run in this service tier ({@code flex}, {@code batch}, {@code priority}). */
        public Builder serviceTier(String tier, double factor) {
            this.serviceTiers.put(Objects.requireNonNull(tier, "tier"), factor);
            return this;
        }

        /** Every service tier's factor, replacing any set before. */
        public Builder serviceTiers(Map<String, Double> tiers) {
            this.serviceTiers = new LinkedHashMap<>(Objects.requireNonNull(tiers, "tiers"));
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

    /**
     * The prices of a request whose prompt is longer than {@link #above()} tokens: the whole
     * request, not only the tokens past the threshold, is billed at them (OpenAI above 272k input
     * tokens, Gemini Pro and Claude Sonnet 4 / 4.5 above 200k). The prompt is every input token,
     * cache reads and writes included. A cache price it does not give is the entry's own, scaled
     * as this tier scales the input price (2.50 instead of 1.25 makes a 0.125 cache read 0.25).
     */
    public static final class LongContext {
        private final Long above;
        private final Double input;
        private final Double cachedInput;
        private final Double cacheWrite;
        private final Double cacheWrite1h;
        private final Double output;

        private LongContext(Builder b) {
            this.above = b.above;
            this.input = b.input;
            this.cachedInput = b.cachedInput;
            this.cacheWrite = b.cacheWrite;
            this.cacheWrite1h = b.cacheWrite1h;
            this.output = b.output;
        }

        public static Builder builder() {
            return new Builder();
        }

        /** The prompt length, in tokens, past which these prices apply. */
        public long above() {
            return above == null ? -1 : above;
        }

        public double input() {
            return input == null ? Double.NaN : input;
        }

        /** Null when not given: the entry's cached-input price, scaled as this tier scales input. */
        public Double cachedInput() {
            return cachedInput;
        }

        /** Null when not given: the entry's cache write price, scaled as this tier scales input. */
        public Double cacheWrite() {
            return cacheWrite;
        }

        /** Null when not given: the entry's 1-hour cache write price, scaled as this tier scales input. */
        public Double cacheWrite1h() {
            return cacheWrite1h;
        }

        public double output() {
            return output == null ? Double.NaN : output;
        }

        void validate(String path, Issues issues) {
            if (above == null) {
                issues.missing(Issues.join(path, "above"));
            } else {
                issues.check(above > 0, Issues.join(path, "above"), above, "> 0 (a prompt length in tokens)");
            }
            checkPrices(input, cachedInput, cacheWrite, cacheWrite1h, output, path, issues);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof LongContext)) {
                return false;
            }
            LongContext l = (LongContext) o;
            return Objects.equals(above, l.above)
                    && Objects.equals(input, l.input)
                    && Objects.equals(cachedInput, l.cachedInput)
                    && Objects.equals(cacheWrite, l.cacheWrite)
                    && Objects.equals(cacheWrite1h, l.cacheWrite1h)
                    && Objects.equals(output, l.output);
        }

        @Override
        public int hashCode() {
            return Objects.hash(above, input, cachedInput, cacheWrite, cacheWrite1h, output);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("{above=")
                    .append(above)
                    .append(", input=")
                    .append(render(input));
            if (cachedInput != null) {
                b.append(", cachedInput=").append(render(cachedInput));
            }
            if (cacheWrite != null) {
                b.append(", cacheWrite=").append(render(cacheWrite));
            }
            if (cacheWrite1h != null) {
                b.append(", cacheWrite1h=").append(render(cacheWrite1h));
            }
            return b.append(", output=").append(render(output)).append('}').toString();
        }

        /** Builds a {@link LongContext}: above, input and output are required. */
        public static final class Builder {
            Long above;
            Double input;
            Double cachedInput;
            Double cacheWrite;
            Double cacheWrite1h;
            Double output;

            private Builder() {}

            public Builder above(long tokens) {
                this.above = tokens;
                return this;
            }

            public Builder input(double v) {
                this.input = v;
                return this;
            }

            public Builder cachedInput(double v) {
                this.cachedInput = v;
                return this;
            }

            public Builder cacheWrite(double v) {
                this.cacheWrite = v;
                return this;
            }

            public Builder cacheWrite1h(double v) {
                this.cacheWrite1h = v;
                return this;
            }

            public Builder output(double v) {
                this.output = v;
                return this;
            }

            /** Unchecked: the price it is part of validates it, naming the entry. */
            public LongContext build() {
                return new LongContext(this);
            }
        }
    }
}
