package dev.sluice.core.quota;

/**
 * The unused guaranteed capacity a bucket shared between tenants holds for each guaranteed tenant
 * (see {@link Guarantees}): up to the tenant's share of the bucket's burst, refilled at its share
 * of the bucket's rate, and not for other tenants to take while unused. A tenant is its index in
 * the guarantees. Shares and the burst are read live (both can be tuned). Guarded by the
 * governor's lock, like its bucket.
 */
final class TenantReserves {

    private final Limit limit;
    private final Guarantees guarantees;
    private final double[] held;

    private TenantReserves(Limit limit, Guarantees guarantees) {
        this.limit = limit;
        this.guarantees = guarantees;
        this.held = new double[guarantees.size()];
        fill();
    }

    /** Full reserves for the guaranteed tenants of {@code guarantees}; null when there are none. */
    static TenantReserves of(Limit limit, Guarantees guarantees) {
        return guarantees.isEmpty() ? null : new TenantReserves(limit, guarantees);
    }

    /** How many tenants hold a reserve. */
    int size() {
        return held.length;
    }

    /** The most a tenant's reserve holds: its share of the burst. */
    double cap(int tenant) {
        return guarantees.share(tenant) * limit.burst();
    }

    /** The share of the bucket's rate that refills a tenant's reserve. */
    double share(int tenant) {
        return guarantees.share(tenant);
    }

    /** What a tenant's reserve holds (it may exceed a cap that was lowered since). */
    double held(int tenant) {
        return held[tenant];
    }

    /** What the reserves of every tenant but {@code tenant} (-1: of every one) hold now, each at most its cap. */
    double heldByOthers(int tenant) {
        double sum = 0;
        for (int i = 0; i < held.length; i++) {
            if (i != tenant) {
                sum += Math.min(held[i], cap(i));
            }
        }
        return sum;
    }

    /** What the reserves of every tenant but {@code tenant} hold when full. */
    double othersAtCap(int tenant) {
        double sum = 0;
        for (int i = 0; i < held.length; i++) {
            if (i != tenant) {
                sum += cap(i);
            }
        }
        return sum;
    }

    /** Takes from the tenant's reserve first; returns how much came from it (0 for -1). */
    long take(int tenant, long amount) {
        if (tenant < 0) {
            return 0;
        }
        long from = (long) Math.min(amount, Math.floor(held[tenant] + 1e-9));
        if (from > 0) {
            held[tenant] -= from;
        }
        return from;
    }

    /** Gives back to the tenant's reserve what a refund returns of what came from it. */
    void giveBack(int tenant, long amount) {
        if (tenant >= 0 && amount > 0) {
            held[tenant] = Math.min(cap(tenant), held[tenant] + amount);
        }
    }

    /** Refills every reserve by its share of {@code added} room, up to its cap. */
    void refill(double added) {
        if (added > 0) {
            for (int i = 0; i < held.length; i++) {
                double cap = cap(i);
                if (held[i] < cap) {
                    held[i] = Math.min(cap, held[i] + added * share(i));
                }
            }
        }
    }

    /** Fills every reserve (a new window). */
    void fill() {
        for (int i = 0; i < held.length; i++) {
            held[i] = cap(i);
        }
    }
}
