package dev.sluice.simulator.ledger;

import java.util.List;
import java.util.Map;

/**
 * A consistent copy of a ledger: totals, per API key, per tenant, attempts per logical call and
 * the concurrency high-water mark. Serialisable with Jackson (the admin endpoint returns it).
 *
 * @param total totals over everything
 * @param byApiKey totals per API key
 * @param byTenant totals per tenant header value (requests without one are not listed)
 * @param attemptsPerCall arrivals per logical call id (requests without one are not listed)
 * @param maxConcurrency most requests in flight at once
 * @param exchanges every exchange, in arrival order (empty when asked without)
 */
public record LedgerSnapshot(
        Counts total,
        Map<String, Counts> byApiKey,
        Map<String, Counts> byTenant,
        Map<String, Integer> attemptsPerCall,
        int maxConcurrency,
        List<Exchange> exchanges) {}
