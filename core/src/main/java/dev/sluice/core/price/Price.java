package dev.sluice.core.price;

import dev.sluice.config.PriceConfig;
import dev.sluice.core.Usage;

/**
 * What one model's tokens cost, and the arithmetic that turns tokens into money. Prices are per
 * million tokens in the config's currency, which makes them micro-units (millionths of the
 * currency) per token: 2.50 per million tokens is 2.5 micro-USD a token. Immutable.
 *
 * <p>Amounts are computed exactly, in millionths of a micro-unit per token (a price is kept to
 * six decimals), so a worst case rounded up is never a micro-unit too high because of binary
 * fractions; sums too large for a long saturate instead of wrapping.
 */
public final class Price {
    /** Millionths of a micro-unit in a micro-unit. */
    private static final long SCALE = 1_000_000L;

    private final double input;
    private final double cachedInput;
    private final double cacheWrite;
    private final double output;
    // The prices in millionths of a micro-unit per token, for exact arithmetic.
    private final long inputScaled;
    private final long cachedInputScaled;
    private final long cacheWriteScaled;
    private final long outputScaled;

    private Price(double input, double cachedInput, double cacheWrite, double output) {
        this.input = requirePrice(input, "input");
        this.cachedInput = requirePrice(cachedInput, "cachedInput");
        this.cacheWrite = requirePrice(cacheWrite, "cacheWrite");
        this.output = requirePrice(output, "output");
        this.inputScaled = scaled(input);
        this.cachedInputScaled = scaled(cachedInput);
        this.cacheWriteScaled = scaled(cacheWrite);
        this.outputScaled = scaled(output);
    }

    /**
     * A price from its four figures per million tokens.
     *
     * @throws IllegalArgumentException if one is negative or not a finite number
     */
    public static Price of(double input, double cachedInput, double cacheWrite, double output) {
        return new Price(input, cachedInput, cacheWrite, output);
    }

    /** A price whose cache reads and writes cost what input costs. */
    public static Price of(double input, double output) {
        return new Price(input, input, input, output);
    }

    /** The price a config entry states (cache prices default to the input price there). */
    public static Price of(PriceConfig config) {
        return new Price(config.input(), config.cachedInput(), config.cacheWrite(), config.output());
    }

    /** Per million uncached input tokens. */
    public double input() {
        return input;
    }

    /** Per million input tokens read from the provider's cache. */
    public double cachedInput() {
        return cachedInput;
    }

    /** Per million input tokens written to the provider's cache (Anthropic bills them apart). */
    public double cacheWrite() {
        return cacheWrite;
    }

    /** Per million output tokens, reasoning tokens included. */
    public double output() {
        return output;
    }

    /**
     * The most a call can cost before it is sent: every input token at the input price (no cache
     * discount is assumed) and every output token it may produce at the output price, in
     * micro-units, rounded up. Negative counts count as zero.
     */
    public long worstCaseMicros(long inputTokens, long maxOutputTokens) {
        long scaled = add(times(inputTokens, inputScaled), times(maxOutputTokens, outputScaled));
        return scaled == Long.MAX_VALUE ? Long.MAX_VALUE : scaled / SCALE + (scaled % SCALE == 0 ? 0 : 1);
    }

    /**
     * What a call cost, from the usage the provider reported, in micro-units rounded to the
     * nearest. Never negative, and it does not throw on usage that does not add up.
     *
     * @param inputCountsCacheReads whether {@link Usage#inputTokens()} includes the tokens read
     *     from the cache, as OpenAI, Azure OpenAI, Gemini, Vertex AI and OpenAI-compatible servers
     *     report it: then input is (input - cached) at the input price plus cached at the cached
     *     price. When false (Anthropic) input is uncached input plus cache writes, and cache reads
     *     come on top: (input - cache writes) at the input price, cache writes at the write price,
     *     cache reads at the cached price. See {@link Prices#inputCountsCacheReads}.
     */
    public long costMicros(Usage usage, boolean inputCountsCacheReads) {
        if (usage == null) {
            return 0;
        }
        long in = Math.max(0, usage.inputTokens());
        long cached = Math.max(0, usage.cachedInputTokens());
        long scaled;
        if (inputCountsCacheReads) {
            long reads = Math.min(cached, in);
            scaled = add(times(in - reads, inputScaled), times(reads, cachedInputScaled));
        } else {
            long writes = Math.min(Math.max(0, usage.cacheCreationInputTokens()), in);
            scaled = add(
                    add(times(in - writes, inputScaled), times(writes, cacheWriteScaled)),
                    times(cached, cachedInputScaled));
        }
        scaled = add(scaled, times(Math.max(0, usage.outputTokens()), outputScaled));
        return scaled == Long.MAX_VALUE ? Long.MAX_VALUE : scaled / SCALE + (scaled % SCALE >= SCALE / 2 ? 1 : 0);
    }

    private static double requirePrice(double price, String name) {
        if (!(price >= 0) || Double.isInfinite(price)) {
            throw new IllegalArgumentException(name + " must be a number >= 0, was " + price);
        }
        return price;
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
        return inputScaled == p.inputScaled
                && cachedInputScaled == p.cachedInputScaled
                && cacheWriteScaled == p.cacheWriteScaled
                && outputScaled == p.outputScaled;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(inputScaled) * 31 * 31 * 31
                + Long.hashCode(cachedInputScaled) * 31 * 31
                + Long.hashCode(cacheWriteScaled) * 31
                + Long.hashCode(outputScaled);
    }

    @Override
    public String toString() {
        return "Price{input=" + input + ", cachedInput=" + cachedInput + ", cacheWrite=" + cacheWrite + ", output="
                + output + " per million tokens}";
    }
}
