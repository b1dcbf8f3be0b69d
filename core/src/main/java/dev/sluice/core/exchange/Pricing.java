package dev.sluice.core.exchange;

import dev.sluice.config.ProviderKind;
import dev.sluice.core.LazyLogger;
import dev.sluice.core.Usage;
import dev.sluice.core.price.Price;
import dev.sluice.core.price.Prices;
import dev.sluice.core.price.ServiceTier;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * What calls cost: the worst case a call reserves against budgets at admission (its input
 * estimate and its output allowance at the model's prices, in the service tier it asks for), and
 * what it is charged once its usage is known. A call whose model has no price costs nothing, and
 * is counted per model and logged once per model: never a silent zero, and {@link
 * #unpricedModels()} says which models so an operator can price them.
 */
final class Pricing {

    private static final LazyLogger LOG = LazyLogger.of(Pricing.class);
    /** Models counted apart (and logged) as unpriced; beyond this many, new ones are counted together. */
    static final int MAX_UNPRICED_MODELS = 256;
    /** Where calls to unpriced models beyond {@link #MAX_UNPRICED_MODELS} are counted. */
    static final String OTHER_MODELS = "(other models)";

    /** Builds the table on first use: parsing the built-in YAML is half of building a governor. */
    private final Supplier<Prices> source;

    private volatile Prices prices;
    private final LongAdder unpricedCalls = new LongAdder();
    /** {@code provider/model} to its unpriced calls. */
    private final Map<String, LongAdder> unpricedModels = new ConcurrentHashMap<>();

    Pricing(Supplier<Prices> source) {
        this.source = source;
    }

    /** The table, built by the first caller that needs it (the others wait for that one). */
    Prices prices() {
        Prices p = prices;
        if (p == null) {
            synchronized (this) {
                p = prices;
                if (p == null) {
                    p = Objects.requireNonNull(source.get(), "prices");
                    prices = p;
                }
            }
        }
        return p;
    }

    /** Prices calls from now on with this table. */
    void replace(Prices table) {
        prices = Objects.requireNonNull(table, "prices");
    }

    /** The price of this call's model, or null (then counted per model, and logged once per model). */
    Price priceOf(String providerName, ProviderKind kind, String model) {
        Price price = prices().priceOf(providerName, kind, model);
        if (price == null) {
            unpricedCalls.increment();
            String key = providerName + '/' + model;
            LongAdder calls = unpricedModels.get(key);
            if (calls == null) {
                boolean room = unpricedModels.size() < MAX_UNPRICED_MODELS;
                calls = new LongAdder();
                LongAdder raced = unpricedModels.putIfAbsent(room ? key : OTHER_MODELS, calls);
                if (raced != null) {
                    calls = raced;
                } else if (room) {
                    LOG.get()
                            .info(
                                    "sluice: no price for model {} of provider {}: its calls are charged nothing"
                                            + " against spend limits (price it under prices: in the config, or keep"
                                            + " pricesFile current)",
                                    model,
                                    providerName);
                }
            }
            calls.increment();
        }
        return price;
    }

    /** The usage with its cost, when the call's model has a price; as it is otherwise. */
    static Usage priced(Usage usage, Price price, ProviderKind kind, ServiceTier requested) {
        if (price == null || usage == null || usage.spendMicros() > 0) {
            return usage;
        }
        return usage.withSpendMicros(price.costMicros(usage, Prices.inputCountsCacheReads(kind), requested));
    }

    /** {@link Prices#describeTables()} once the table is read; null before (asking must not read it). */
    String tablesIfRead() {
        Prices p = prices;
        return p == null ? null : p.describeTables();
    }

    long unpricedCalls() {
        return unpricedCalls.sum();
    }

    /** Calls to each model no price covered, by {@code provider/model}, sorted by name. */
    Map<String, Long> unpricedModels() {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, LongAdder> e : unpricedModels.entrySet()) {
            out.put(e.getKey(), e.getValue().sum());
        }
        return out;
    }
}
