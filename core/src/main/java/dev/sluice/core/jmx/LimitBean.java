package dev.sluice.core.jmx;

import dev.sluice.config.Dimension;
import dev.sluice.core.BucketView;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.quota.ProviderScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@link LimitMXBean} of one configured limit, or of one limit learned in a provider scope. */
final class LimitBean implements LimitMXBean {

    /** Most rows of the bucket table: the busiest first. */
    static final int MAX_ROWS = 50;

    private final SluiceMBeans beans;
    private final Limit limit;
    /** For a learned limit: its scope and its one bucket; null for a configured limit. */
    private final ProviderScope scope;

    private final Bucket learnedBucket;

    private LimitBean(SluiceMBeans beans, Limit limit, ProviderScope scope, Bucket learnedBucket) {
        this.beans = beans;
        this.limit = limit;
        this.scope = scope;
        this.learnedBucket = learnedBucket;
    }

    static LimitBean configured(SluiceMBeans beans, Limit limit) {
        return new LimitBean(beans, limit, null, null);
    }

    static LimitBean learned(SluiceMBeans beans, ProviderScope scope, Bucket bucket) {
        return new LimitBean(beans, bucket.limit(), scope, bucket);
    }

    Limit limit() {
        return limit;
    }

    ProviderScope scope() {
        return scope;
    }

    boolean learned() {
        return scope != null;
    }

    @Override
    public String getId() {
        return limit.id();
    }

    @Override
    public String getDimension() {
        return limit.dimension().configName();
    }

    @Override
    public String getWindow() {
        return window(limit.spec());
    }

    /** The window as a config file writes it: {@code 1d}, {@code 1m}, {@code 10s}; empty for concurrency. */
    static String window(LimitSpec spec) {
        if (spec.period() != null) {
            return spec.period().configName();
        }
        Duration w = spec.window();
        if (w == null) {
            return "";
        }
        if (w.getNano() != 0) {
            return w.toMillis() + "ms";
        }
        long s = w.getSeconds();
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3_600 == 0) {
            return s / 3_600 + "h";
        }
        return s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    @Override
    public String getAlgorithm() {
        return algorithm(limit.spec());
    }

    static String algorithm(LimitSpec spec) {
        return spec.dimension() == Dimension.CONCURRENCY
                ? "concurrency"
                : spec.algorithm().configName();
    }

    @Override
    public String getLevel() {
        return limit.spec().level().configName();
    }

    @Override
    public String getProvider() {
        if (scope != null) {
            return SluiceMBeans.providerOf(scope);
        }
        return limit.spec().provider() == null ? "" : limit.spec().provider();
    }

    @Override
    public String getSource() {
        return learned() ? "learned" : "configured";
    }

    @Override
    public boolean isMirrorsProvider() {
        return limit.mirrorsProvider();
    }

    @Override
    public long getCapacity() {
        return limit.capacity();
    }

    @Override
    public void setCapacity(long capacity) {
        if (learned()) {
            throw new IllegalArgumentException("limit " + limit.id() + " was learned from the provider's headers and"
                    + " follows them; set the capacity of a configured limit, or set Enforced to false");
        }
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0, was " + capacity);
        }
        beans.controls().setCapacity(limit.id(), capacity);
        beans.changed();
    }

    @Override
    public long getBurst() {
        return dev.sluice.core.quota.BurstSetting.hasBurst(limit.spec()) ? limit.burst() : 0;
    }

    @Override
    public void setBurst(long burst) {
        // checked here too: a learned limit's bean is not among the controls' configured limits,
        // and its refusal says why
        String refusal = dev.sluice.core.quota.BurstSetting.refusal(limit, burst);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        beans.controls().setBurst(limit.id(), burst);
        beans.changed();
    }

    @Override
    public boolean isEnforced() {
        return limit.enforced();
    }

    @Override
    public void setEnforced(boolean enforced) {
        limit.setEnforced(enforced);
        beans.changed();
    }

    private List<BucketView> views() {
        return beans.view().now().buckets(limit.id());
    }

    @Override
    public long getAvailable() {
        List<BucketView> views = views();
        if (views.isEmpty()) {
            return limit.capacity();
        }
        long least = Long.MAX_VALUE;
        for (BucketView v : views) {
            least = Math.min(least, v.room());
        }
        return least;
    }

    @Override
    public long getReserved() {
        long total = 0;
        for (BucketView v : views()) {
            total += v.reserved();
        }
        return total;
    }

    @Override
    public long getInFlight() {
        Integer n = beans.view().now().inFlightByLimit.get(limit.id());
        return n == null ? 0 : n;
    }

    @Override
    public double getUtilisation() {
        double most = 0;
        for (BucketView v : views()) {
            most = Math.max(most, v.utilisation());
        }
        return most;
    }

    @Override
    public int getBucketCount() {
        return views().size();
    }

    @Override
    public List<BucketRow> getBuckets() {
        return rows(views(), MAX_ROWS);
    }

    /** The busiest buckets first, then by scope. */
    static List<BucketRow> rows(List<BucketView> views, int max) {
        List<BucketView> sorted = new ArrayList<>(views);
        sorted.sort(
                Comparator.comparingDouble(BucketView::utilisation).reversed().thenComparing(BucketView::scope));
        List<BucketRow> rows = new ArrayList<>();
        for (BucketView v : sorted) {
            if (rows.size() == max) {
                break;
            }
            rows.add(new BucketRow(
                    v.limitId(),
                    v.scope(),
                    v.dimension().configName(),
                    v.capacity(),
                    v.room(),
                    v.reserved(),
                    v.utilisation(),
                    v.enforced()));
        }
        return rows;
    }

    @Override
    public long getProviderLimit() {
        Reported r = reported();
        return r == null ? -1 : r.limit;
    }

    @Override
    public long getProviderRemaining() {
        Reported r = reported();
        return r == null ? -1 : r.remaining;
    }

    /**
     * What the provider announced: a learned limit's own figures; for a configured limit that
     * mirrors the provider, the learned bucket of the same dimension and window with the least
     * remaining over the provider's scopes.
     */
    private Reported reported() {
        if (learned()) {
            return new Reported(scope.reportedLimit(learnedBucket), scope.reportedRemaining(learnedBucket));
        }
        if (!limit.mirrorsProvider()) {
            return null;
        }
        LimitSpec spec = limit.spec();
        Reported least = null;
        for (ProviderScope s : beans.controls().providerScopes()) {
            if (spec.provider() != null && !spec.provider().equals(SluiceMBeans.providerOf(s))) {
                continue;
            }
            for (Bucket b : s.learnedBuckets()) {
                LimitSpec learnedSpec = b.limit().spec();
                if (learnedSpec.dimension() != spec.dimension() || !sameWindow(learnedSpec, spec)) {
                    continue;
                }
                Reported r = new Reported(s.reportedLimit(b), s.reportedRemaining(b));
                if (r.remaining >= 0 && (least == null || least.remaining < 0 || r.remaining < least.remaining)) {
                    least = r;
                } else if (least == null) {
                    least = r;
                }
            }
        }
        return least;
    }

    private static boolean sameWindow(LimitSpec a, LimitSpec b) {
        return a.window() != null && b.window() != null && a.window().equals(b.window());
    }

    @Override
    public long getRejections() {
        long total = 0;
        for (GatewayDecision d : GatewayDecision.values()) {
            total += limit.rejections(d);
        }
        return total;
    }

    @Override
    public Map<String, Long> getRejectionsByReason() {
        Map<String, Long> byReason = new LinkedHashMap<>();
        for (GatewayDecision d : GatewayDecision.values()) {
            byReason.put(d.wireName(), limit.rejections(d));
        }
        return byReason;
    }

    private static final class Reported {
        final long limit;
        final long remaining;

        Reported(long limit, long remaining) {
            this.limit = limit;
            this.remaining = remaining;
        }
    }
}
