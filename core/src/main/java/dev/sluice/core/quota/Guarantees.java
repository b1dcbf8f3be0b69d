package dev.sluice.core.quota;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The guaranteed shares of the configured tenants, by index. A tenant with a guaranteed share g
 * of a bucket shared between tenants has a reserve of up to g x capacity in it, refilled at g x the
 * bucket's rate: others cannot take it while it is unused, so the tenant is served at once
 * whenever it stays within its guarantee; once the reserve is full, the rest of its share flows to
 * the others (borrowing), and it is reclaimed as soon as the tenant sends again. Shares are tunable
 * live; the set of tenants is fixed when the governor is built.
 */
public final class Guarantees {

    private static final Guarantees NONE = new Guarantees(List.of(), new double[0]);

    private final Map<String, Integer> indexByTenant;
    private final List<String> tenants;
    private volatile double[] shares;

    private Guarantees(List<String> tenants, double[] shares) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < tenants.size(); i++) {
            index.put(tenants.get(i), i);
        }
        this.indexByTenant = Collections.unmodifiableMap(index);
        this.tenants = List.copyOf(tenants);
        this.shares = shares;
    }

    public static Guarantees none() {
        return NONE;
    }

    /** @param shareByTenant each configured tenant's guaranteed share (0 for none); sum at most 1 */
    public static Guarantees of(Map<String, Double> shareByTenant) {
        List<String> names = new java.util.ArrayList<>(shareByTenant.keySet());
        double[] s = new double[names.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = shareByTenant.get(names.get(i));
        }
        validate(s);
        return new Guarantees(names, s);
    }

    private static void validate(double[] s) {
        double sum = 0;
        for (double v : s) {
            if (!(v >= 0 && v < 1)) {
                throw new IllegalArgumentException("a guaranteed share must be >= 0 and < 1, was " + v);
            }
            sum += v;
        }
        if (sum > 1 + 1e-9) {
            throw new IllegalArgumentException("guaranteed shares sum to " + sum + ", more than 1");
        }
    }

    /** Number of tenants that may hold a guarantee (configured tenants). */
    public int size() {
        return tenants.size();
    }

    public boolean isEmpty() {
        return tenants.isEmpty();
    }

    /** The tenant's index, or -1 when it is not a configured tenant. */
    public int indexOf(String tenant) {
        if (tenant == null) {
            return -1;
        }
        Integer i = indexByTenant.get(tenant);
        return i == null ? -1 : i;
    }

    public String tenant(int index) {
        return tenants.get(index);
    }

    public double share(int index) {
        return shares[index];
    }

    /** The share of a tenant by name, 0 when it has none. */
    public double share(String tenant) {
        int i = indexOf(tenant);
        return i < 0 ? 0 : shares[i];
    }

    /** Live tuning; refused (nothing changes) when the shares would sum over 1. */
    public synchronized void setShare(String tenant, double share) {
        int i = indexOf(tenant);
        if (i < 0) {
            throw new IllegalArgumentException(
                    "tenant " + tenant + " is not configured; guarantees need a tenants[] entry");
        }
        double[] next = Arrays.copyOf(shares, shares.length);
        next[i] = share;
        validate(next);
        shares = next;
    }
}
