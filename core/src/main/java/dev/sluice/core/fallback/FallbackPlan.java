package dev.sluice.core.fallback;

import java.util.List;

/**
 * The routes the calls of one traffic class to one provider may take after their own, in order,
 * with the class's rules: how long a provider pause is waited out before moving on, whether a
 * route may change the model, and the class's deadline, which counts from the call's start
 * across every route. Immutable.
 */
public final class FallbackPlan {
    private final List<FallbackRoute> routes;
    private final long afterPauseNanos;
    private final boolean otherModels;
    private final long classMaxWaitNanos;

    public FallbackPlan(List<FallbackRoute> routes, long afterPauseNanos, boolean otherModels, long classMaxWaitNanos) {
        this.routes = List.copyOf(routes);
        this.afterPauseNanos = afterPauseNanos;
        this.otherModels = otherModels;
        this.classMaxWaitNanos = classMaxWaitNanos;
    }

    public List<FallbackRoute> routes() {
        return routes;
    }

    /** A provider pause longer than this sends a call on. */
    public long afterPauseNanos() {
        return afterPauseNanos;
    }

    /** How long the class's calls may wait for admission, from the call's start, whatever route they are on. */
    public long classMaxWaitNanos() {
        return classMaxWaitNanos;
    }

    /**
     * The first route at or after {@code from} a call of this model may take: one that keeps the
     * model, or names it, or any route when the class allows other models; -1 when none.
     */
    public int next(int from, String model) {
        for (int i = Math.max(0, from); i < routes.size(); i++) {
            String m = routes.get(i).model();
            if (m == null || otherModels || m.equals(model)) {
                return i;
            }
        }
        return -1;
    }
}
