package dev.sluice.core.price;

import dev.sluice.config.PriceConfig;
import dev.sluice.core.Usage;
import java.util.Arrays;
import java.util.Map;

/**
 * What one model's tokens cost, and the arithmetic that turns tokens into money. Prices are per
 * million tokens in the config's currency, which makes them micro-units (millionths of the
 * currency) per token: 2.50 per million tokens is 2.5 micro-USD a token. Immutable.
 *
 * <p>Besides the five prices (uncached input, cache reads, cache writes, one-hour cache writes,
 * output), two rules a flat price cannot hold: a long-context tier (a request whose prompt is
 * longer than a threshold is billed at other prices, all of it) and service tier factors (flex
 * and batch runs cost less, priority more), which multiply whichever prices apply.
 *
 * <p>Amounts are computed exactly, in millionths of a micro-unit per token (a price is kept to
 * six decimals), so a worst case rounded up is never a micro-unit too high because of binary
 * fractions; sums too large for a long saturate instead of wrapping.
 */
public final class Price {
    /** Millionths of a micro-unit in a micro-unit. */
    private static final long SCALE = 1_000_000L;

    private static final ServiceTier[] TIERS = ServiceTier.values();

    /** One set of prices per token, in millionths of a micro-unit, and per million tokens as given. */
    private static final class Rates {
        final double input;
        final double cachedInput;
        final double cacheWrite;
        final double cacheWrite1h;
        final double output;
        final long inputScaled;
        final long cachedInputScaled;
        final long cacheWriteScaled;
        final long cacheWrite1hScaled;
        final long outputScaled;

        Rates(double input, double cachedInput, double cacheWrite, double cacheWrite1h, double output) {
            this.input = requirePrice(input, "input");
            this.cachedInput = requirePrice(cachedInput, "cachedInput");
            this.cacheWrite = requirePrice(cacheWrite, "cacheWrite");
            this.cacheWrite1h = requirePrice(cacheWrite1h, "cacheWrite1h");
            this.output = requirePrice(output, "output");
            this.inputScaled = scaled(input);
            this.cachedInputScaled = scaled(cachedInput);
            this.cacheWriteScaled = scaled(cacheWrite);
            this.cacheWrite1hScaled = scaled(cacheWrite1h);
            this.outputScaled = scaled(output);
        }

        Rates times(double factor) {
            return factor == 1.0
                    ? this
                    : new Rates(
                            input * factor,
                            cachedInput * factor,
                            cacheWrite * factor,
                            cacheWrite1h * factor,
                            output * factor);
        }

        boolean sameAs(Rates r) {
            return inputScaled == r.inputScaled
                    && cachedInputScaled == r.cachedInputScaled
                    && cacheWriteScaled == r.cacheWriteScaled
                    && cacheWrite1hScaled == r.cacheWrite1hScaled
                    && outputScaled == r.outputScaled;
        }

        int hash() {
            return Arrays.hashCode(
                    new long[] {inputScaled, cachedInputScaled, cacheWriteScaled, cacheWrite1hScaled, outputScaled});
        }

        @Override
        public String toString() {
            return "input=" + input + ", cachedInput=" + cachedInput + ", cacheWrite=" + cacheWrite
                    + (cacheWrite1h != cacheWrite ? ", cacheWrite1h=" + cacheWrite1h : "") + ", output=" + output;
        }
    }

    private final Rates base;
    /** Prompt tokens above which {@link #longContext} applies; 0 when there is no such tier. */
    private final long longContextAbove;

    private final Rates longContext;
    /** By {@link ServiceTier#ordinal()}: the factor, and the rates it makes. */
    private final double[] factors;

    private final Rates[] baseByTier;
    private final Rates[] longByTier;

    private Price(Rates base, long longContextAbove, Rates longContext, double[] factors) {
        this.base = base;
        this.longContextAbove = longContext == null ? 0 : longContextAbove;
        this.longContext = longContext;
        this.factors = factors;
        this.baseByTier = new Rates[TIERS.length];
        this.longByTier = new Rates[TIERS.length];
        for (ServiceTier t : TIERS) {
            double f = requireFactor(factors[t.ordinal()], t);
            baseByTier[t.ordinal()] = base.times(f);
            longByTier[t.ordinal()] = longContext == null ? null : longContext.times(f);
        }
    }

    /**
     * A price from its four figures per million tokens; a one-hour cache write costs a cache write.
     *
     * @throws IllegalArgumentException if one is negative or not a finite number
     */
    public static Price of(double input, double cachedInput, double cacheWrite, double output) {
        return new Price(new Rates(input, cachedInput, cacheWrite, cacheWrite, output), 0, null, standardOnly());
    }

    /** A price whose cache reads and writes cost what input costs. */
    public static Price of(double input, double output) {
        return of(input, input, input, output);
    }

    /** The price a config entry states (cache prices default to the input price there), with its own tier factors only. */
    public static Price of(PriceConfig config) {
        return of(config, Map.of());
    }

    /**
     * The price a config entry states, its service tier factors completed by {@code tableTiers}
     * (a tier neither sets is billed at the standard price).
     *
     * @throws IllegalArgumentException if a price or factor is negative or not a finite number
     */
    public static Price of(PriceConfig config, Map<String, Double> tableTiers) {
        Rates base = new Rates(
                config.input(), config.cachedInput(), config.cacheWrite(), config.cacheWrite1h(), config.output());
        PriceConfig.LongContext l = config.longContext();
        Rates longContext = null;
        long above = 0;
        if (l != null) {
            double input = requirePrice(l.input(), "longContext.input");
            // a cache price the tier does not give scales as the tier scales input
            double scale = base.input > 0 ? input / base.input : 1;
            longContext = new Rates(
                    input,
                    l.cachedInput() != null ? l.cachedInput() : base.cachedInput * scale,
                    l.cacheWrite() != null ? l.cacheWrite() : base.cacheWrite * scale,
                    l.cacheWrite1h() != null ? l.cacheWrite1h() : base.cacheWrite1h * scale,
                    l.output());
            above = l.above();
            if (above <= 0) {
                throw new IllegalArgumentException("longContext.above must be > 0, was " + above);
            }
        }
        double[] factors = standardOnly();
        for (ServiceTier t : TIERS) {
            Double f = config.serviceTiers().get(t.configName());
            if (f == null) {
                f = tableTiers.get(t.configName());
            }
            if (f != null && t != ServiceTier.STANDARD) {
                factors[t.ordinal()] = f;
            }
        }
        return new Price(base, above, longContext, factors);
    }

    private static double[] standardOnly() {
        double[] f = new double[TIERS.length];
        Arrays.fill(f, 1.0);
        return f;
    }

    /** Per million uncached input tokens. */
    public double input() {
        return base.input;
    }

    /** Per million input tokens read from the provider's cache. */
    public double cachedInput() {
        return base.cachedInput;
    }

    /** Per million input tokens written to the provider's cache. */
    public double cacheWrite() {
        return base.cacheWrite;
    }

    /** Per million input tokens written to a cache kept for an hour (Anthropic). */
    public double cacheWrite1h() {
        return base.cacheWrite1h;
    }

    /** Per million output tokens, reasoning tokens included. */
    public double output() {
        return base.output;
    }

    /** The prompt length past which the long-context prices apply; 0 when there is no long-context tier. */
    public long longContextAbove() {
        return longContextAbove;
    }

    /** The factor on every price of a call run in this tier: 1 for standard, 0.5 for half price. */
    public double factor(ServiceTier tier) {
        return factors[tier.ordinal()];
    }

    /** The most a call can cost, in the standard tier: see {@link #worstCaseMicros(long, long, ServiceTier)}. */
    public long worstCaseMicros(long inputTokens, long maxOutputTokens) {
        return worstCaseMicros(inputTokens, maxOutputTokens, ServiceTier.STANDARD);
    }

    /**
     * The most a call can cost before it is sent: every input token at the input price (no cache
     * discount is assumed) and every output token it may produce at the output price, the
     * long-context prices when the input is longer than their threshold, times the tier's
     * factor, in micro-units, rounded up. Negative counts count as zero.
     */
    public long worstCaseMicros(long inputTokens, long maxOutputTokens, ServiceTier tier) {
        Rates r = rates(inputTokens, tier);
        long scaled = add(times(inputTokens, r.inputScaled), times(maxOutputTokens, r.outputScaled));
        return scaled == Long.MAX_VALUE ? Long.MAX_VALUE : scaled / SCALE + (scaled % SCALE == 0 ? 0 : 1);
    }

    /** What a call cost in the tier its usage reports, else standard: see {@link #costMicros(Usage, boolean, ServiceTier)}. */
    public long costMicros(Usage usage, boolean inputCountsCacheReads) {
        return costMicros(usage, inputCountsCacheReads, ServiceTier.STANDARD);
    }

    /**
     * What a call cost, from the usage the provider reported, in micro-units rounded to the
     * nearest. Never negative, and it does not throw on usage that does not add up.
     *
     * <p>Cache writes ({@link Usage#cacheCreationInputTokens()}, of which {@link
     * Usage#cacheWrite1hInputTokens()} to a one-hour cache) are part of the input either way.
     * The prompt's length, for the long-context tier, is every input token, cache reads included.
     *
     * @param inputCountsCacheReads whether {@link Usage#inputTokens()} includes the tokens read
     *     from the cache, as OpenAI, Azure OpenAI, Gemini, Vertex AI and OpenAI-compatible servers
     *     report it: then input is (input - reads - writes) at the input price, reads at the cached
     *     price, writes at the write price. When false (Anthropic) input is uncached input plus
     *     cache writes, and cache reads come on top. See {@link Prices#inputCountsCacheReads}.
     * @param requested the tier the request asked for: the usage's own {@link
     *     Usage#serviceTier()}, when the answer reported one, wins
     */
    public long costMicros(Usage usage, boolean inputCountsCacheReads, ServiceTier requested) {
        if (usage == null) {
            return 0;
        }
        long in = Math.max(0, usage.inputTokens());
        long cached = Math.max(0, usage.cachedInputTokens());
        long reads;
        long prompt;
        if (inputCountsCacheReads) {
            reads = Math.min(cached, in);
            prompt = in;
        } else {
            reads = cached;
            prompt = add(in, cached);
        }
        long writes = Math.min(Math.max(0, usage.cacheCreationInputTokens()), inputCountsCacheReads ? in - reads : in);
        long writes1h = Math.min(Math.max(0, usage.cacheWrite1hInputTokens()), writes);
        long uncached = (inputCountsCacheReads ? in - reads : in) - writes;
        ServiceTier tier = usage.serviceTier() != null ? ServiceTier.of(usage.serviceTier()) : requested;
        Rates r = rates(prompt, tier == null ? ServiceTier.STANDARD : tier);
        long scaled = add(
                add(times(uncached, r.inputScaled), times(reads, r.cachedInputScaled)),
                add(times(writes - writes1h, r.cacheWriteScaled), times(writes1h, r.cacheWrite1hScaled)));
        scaled = add(scaled, times(Math.max(0, usage.outputTokens()), r.outputScaled));
        return scaled == Long.MAX_VALUE ? Long.MAX_VALUE : scaled / SCALE + (scaled % SCALE >= SCALE / 2 ? 1 : 0);
    }

    private Rates rates(long promptTokens, ServiceTier tier) {
        int t = tier.ordinal();
        return longContext != null && promptTokens > longContextAbove ? longByTier[t] : baseByTier[t];
    }

    private static double requirePrice(double price, String name) {
        if (!(price >= 0) || Double.isInfinite(price)) {
            throw new IllegalArgumentException(name + " must be a number >= 0, was " + price);
        }
        return price;
    }

    private static double requireFactor(double factor, ServiceTier tier) {
        if (!(factor >= 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException(
                    "the " + tier.configName() + " service tier's factor must be a number >= 0, was " + factor);
        }
        return factor;
    }

    /** Millionths of a micro-unit per token; prices beyond a long's reach saturate. */
    private static long scaled(double pricePerMillion) {
        double s = Math.rint(pricePerMillion * SCALE);
        return s >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) s;
    }

    private static long times(long tokens, long scaledPrice) {
        if (tokens <= 0 || scaledPrice == 0) {
            return 0;
        }
        long high = Math.multiplyHigh(tokens, scaledPrice);
        long low = tokens * scaledPrice;
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    private static long add(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Price)) {
            return false;
        }
        Price p = (Price) o;
        return base.sameAs(p.base)
                && longContextAbove == p.longContextAbove
                && (longContext == null
                        ? p.longContext == null
                        : p.longContext != null && longContext.sameAs(p.longContext))
                && Arrays.equals(factors, p.factors);
    }

    @Override
    public int hashCode() {
        return base.hash() * 31 * 31 + Long.hashCode(longContextAbove) * 31 + Arrays.hashCode(factors);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Price{").append(base);
        if (longContext != null) {
            b.append(", above ").append(longContextAbove).append(" tokens: ").append(longContext);
        }
        for (ServiceTier t : TIERS) {
            if (factors[t.ordinal()] != 1.0) {
                b.append(", ").append(t.configName()).append(" x").append(factors[t.ordinal()]);
            }
        }
        return b.append(" per million tokens}").toString();
    }
}
