package dev.sluice.core.exchange;

import dev.sluice.config.ProviderKind;
import dev.sluice.core.LazyLogger;
import dev.sluice.core.Usage;
import dev.sluice.core.price.Price;
import dev.sluice.core.price.Prices;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * What calls cost: the worst case a call reserves against budgets at admission (its input
 * estimate and its output allowance at the model's prices), and what it is charged once its usage
 * is known. A call whose model has no price costs nothing, and is counted and logged once per
 * model: never a silent zero.
 */
final class Pricing {

    private static final LazyLogger LOG = LazyLogger.of(Pricing.class);
    /** Models logged as unpriced; beyond this many, new ones are counted but not logged. */
    private static final int MAX_LOGGED_MODELS = 256;

    /** Builds the table on first use: parsing the built-in YAML is half of building a governor. */
    private final Supplier<Prices> source;

    private volatile Prices prices;
    private final LongAdder unpricedCalls = new LongAdder();
    private final Set<String> loggedModels = ConcurrentHashMap.newKeySet();

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

    /** The price of this call's model, or null (then counted and logged once per model). */
    Price priceOf(String providerName, ProviderKind kind, String model) {
        Price price = prices().priceOf(providerName, kind, model);
        if (price == null) {
            unpricedCalls.increment();
            String key = providerName + '/' + model;
            if (loggedModels.size() < MAX_LOGGED_MODELS && loggedModels.add(key)) {
                LOG.get()
                        .info(
                                "sluice: no price for model {} of provider {}: its calls are charged nothing against"
                                        + " spend limits (add it under prices: in the config)",
                                model,
                                providerName);
            }
        }
        return price;
    }

    /** The usage with its cost, when the call's model has a price; as it is otherwise. */
    static Usage priced(Usage usage, Price price, ProviderKind kind) {
        if (price == null || usage == null || usage.spendMicros() > 0) {
            return usage;
        }
        return usage.withSpendMicros(price.costMicros(usage, Prices.inputCountsCacheReads(kind)));
    }

    long unpricedCalls() {
        return unpricedCalls.sum();
    }
}
