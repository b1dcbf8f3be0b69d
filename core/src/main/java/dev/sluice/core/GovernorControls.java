package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.config.Mode;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.BurstSetting;
import dev.sluice.core.quota.Guarantees;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.schedule.TrafficClass;
import dev.sluice.core.state.LearnedState;
import dev.sluice.core.state.SavedState;
import dev.sluice.core.store.QuotaStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The operators' side of a governor (the MBeans, a configuration reload, the agent's status and
 * state file, and tests): what it is configured with, where its buckets and queues stand, its
 * budgets, the live settings (mode, capacities, tenants' weights, emergency stops), and what it
 * learned, to save and restore. A view: it keeps no state
 * of its own, and reads and changes the governor's through the governor's own lock sequence
 * ({@link Governor#underLock} when waiting calls may get their turn from the change or the
 * figures must be exact, {@link Governor#holding} otherwise).
 */
public final class GovernorControls {

    private final Governor governor;

    GovernorControls(Governor governor) {
        this.governor = governor;
    }

    // ------------------------------------------------------------------ configuration

    /** Live tuning: applies to the next admission. */
    public void setMode(Mode newMode) {
        Objects.requireNonNull(newMode);
        governor.holding(() -> {
            governor.mode = newMode;
            governor.updateLaneGate();
            return null;
        });
    }

    /**
     * The configured limits, in declaration order; not the requests limits the providers' ramps
     * set, which their {@link #ramps()} show.
     */
    public List<Limit> limits() {
        if (governor.ramps.all().isEmpty()) {
            return governor.limitList;
        }
        List<Limit> configured = new ArrayList<>();
        for (Limit l : governor.limitList) {
            if (l.spec().source() != dev.sluice.core.quota.LimitSpec.Source.RAMP) {
                configured.add(l);
            }
        }
        return configured;
    }

    /** The configured limit with this id, or null. */
    public Limit limit(String id) {
        for (Limit l : governor.limits) {
            if (l.id().equals(id)) {
                return l;
            }
        }
        return null;
    }

    /** Live tuning of a configured limit's capacity; waiting calls are reconsidered at once. */
    public void setCapacity(String limitId, long capacity) {
        Limit l = limit(limitId);
        if (l == null) {
            throw new IllegalArgumentException("no limit " + limitId);
        }
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0, was " + capacity);
        }
        if (l.spec().source() == dev.sluice.core.quota.LimitSpec.Source.RAMP) {
            throw new IllegalArgumentException("limit " + limitId + " is set by its provider's ramp; tune the Ramp");
        }
        governor.underLock(now -> {
            l.setCapacity(capacity, now, governor.clock.epochMillis());
            return null;
        });
    }

    /**
     * Live tuning of a configured token-bucket limit's burst (the most let through at once; 0: the
     * capacity). A bucket holding more keeps only the new burst; waiting calls are reconsidered.
     */
    public void setBurst(String limitId, long burst) {
        Limit l = limit(limitId);
        if (l == null) {
            throw new IllegalArgumentException("no limit " + limitId);
        }
        String refusal = BurstSetting.refusal(l, burst);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        governor.underLock(now -> {
            l.setBurst(burst, now, governor.clock.epochMillis());
            return null;
        });
    }

    /** The providers' ramps, in declaration order. */
    public List<dev.sluice.core.quota.Ramp> ramps() {
        return governor.ramps.all();
    }

    public Map<String, TrafficClass> trafficClasses() {
        return governor.calls.classes();
    }

    /** Where the buckets a fleet shares live. */
    public QuotaStore store() {
        return governor.store;
    }

    public Duration leaseTimeout() {
        return Duration.ofNanos(governor.leaseTimeoutNanos);
    }

    /**
     * Offers the waiting calls their turn now, with every settlement applied: after a live change
     * that may let some through (a limit no longer enforced, a new weight or share).
     */
    public void reconsiderWaiting() {
        governor.underLock(now -> null);
    }

    // ------------------------------------------------------------------ tenants and emergency stops

    /** Live tuning of a tenant's weight in fair sharing. */
    public void setTenantWeight(String tenant, double weight) {
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("weight must be > 0, was " + weight);
        }
        governor.calls.setWeight(tenant, weight);
    }

    public double tenantWeight(String tenant) {
        return governor.calls.weightOf(tenant);
    }

    /** The guaranteed shares of configured tenants (tunable live). */
    public Guarantees guarantees() {
        return governor.guarantees;
    }

    /** Emergency stop for a tenant: its calls are rejected with {@code paused} until resumed. */
    public void pauseTenant(String tenant) {
        governor.pauses.pauseTenant(tenant);
        pausesChanged();
    }

    public void resumeTenant(String tenant) {
        governor.pauses.resumeTenant(tenant);
        pausesChanged();
    }

    /** Emergency stop for an API key (by its id). */
    public void pauseApiKey(String apiKeyId) {
        governor.pauses.pauseApiKey(apiKeyId);
        pausesChanged();
    }

    public void resumeApiKey(String apiKeyId) {
        governor.pauses.resumeApiKey(apiKeyId);
        pausesChanged();
    }

    /** Under the lock, so a pause and a resume racing cannot leave the lane open past a pause. */
    private void pausesChanged() {
        governor.holding(() -> {
            governor.pauses.recount();
            governor.updateLaneGate();
            return null;
        });
    }

    public Set<String> pausedTenants() {
        return governor.pauses.tenants();
    }

    public Set<String> pausedApiKeys() {
        return governor.pauses.apiKeys();
    }

    // ------------------------------------------------------------------ where things stand

    /**
     * Room left in a dimension: the least room over every bucket of that dimension (configured and
     * learned). For tests and status views.
     */
    public long available(Dimension dimension) {
        return governor.underLock(nowNanos -> StatusViews.available(
                dimension, governor.limits, governor.routes.scopes(), nowNanos, governor.clock.epochMillis()));
    }

    /**
     * A consistent view of every bucket (configured and learned) for status views, read under
     * the lock with every settlement applied.
     */
    public List<BucketView> bucketViews() {
        return governor.underLock(nowNanos -> StatusViews.bucketViews(
                governor.limits, governor.routes.scopes(), nowNanos, governor.clock.epochMillis()));
    }

    /** Provider scopes known now (learned limits, pauses). */
    public List<ProviderScope> providerScopes() {
        return new ArrayList<>(governor.routes.scopes());
    }

    /** Calls waiting in all queues (read under the lock: a call counts once it is fully queued). */
    public int waiting() {
        return governor.holding(() -> governor.waiting);
    }

    /** Permits that still hold something (unsettled, or a concurrency slot not released). */
    public int outstandingPermits() {
        return governor.underLock(now -> governor.ledger.outstanding());
    }

    /**
     * Calls in flight per limit id (configured and learned): permits that still hold a
     * reservation or a slot on one of the limit's buckets. Walks the outstanding permits under
     * the lock, so it is for status views, not for the admission path.
     */
    public Map<String, Integer> inFlightByLimit() {
        return governor.underLock(now -> StatusViews.inFlightByLimit(governor.ledger.oldest()));
    }

    /** Queue depth of a traffic class. */
    public int queueDepth(String trafficClass) {
        return governor.underLock(now -> governor.calls.depth(trafficClass));
    }

    /** Calls waiting per tenant, over every class. */
    public Map<String, Integer> waitingByTenant() {
        return governor.underLock(now -> StatusViews.waitingByTenant(governor.calls.byPriority()));
    }

    // ------------------------------------------------------------------ budgets

    /** The currency unit spend limits and prices are in (config {@code currency}), for what budgets say. */
    public void currency(String currency) {
        governor.budgets.currency(currency);
    }

    public String currency() {
        return governor.budgets.currency();
    }

    /** Where every bucket of a spend limit stands now; empty for an unknown or non-spend limit. */
    public List<BudgetStatus> budgetStatuses(String limitId) {
        Limit l = limit(limitId);
        if (l == null || l.dimension() != Dimension.SPEND) {
            return List.of();
        }
        return governor.underLock(nowNanos -> {
            long nowMillis = governor.clock.epochMillis();
            List<BudgetStatus> out = new ArrayList<>();
            for (Bucket b : l.buckets()) {
                out.add(governor.budgets.status(b, nowNanos, nowMillis, 0));
            }
            return out;
        });
    }

    /**
     * How the calls charged to a spend limit were settled: {from the provider's usage, from
     * Sluice's count of a stream cut short, as reserved because usage never came}.
     */
    public long[] budgetSettlements(String limitId) {
        Budgets.Settlements s = governor.budgets.settlements(limitId);
        return new long[] {s.fromUsage.sum(), s.fromCount.sum(), s.asReserved.sum()};
    }

    /** Called on the governor's timer thread for each budget alert (warning share passed, exhausted). */
    public void addBudgetListener(Consumer<BudgetAlert> listener) {
        governor.budgets.addListener(listener);
    }

    public void removeBudgetListener(Consumer<BudgetAlert> listener) {
        governor.budgets.removeListener(listener);
    }

    // ------------------------------------------------------------------ what was learned, for a state file

    /**
     * What the governor learned, for a state file: every provider scope's learned budgets and
     * pause, the keys' organizations, and the room left in the configured buckets ({@link
     * LearnedState#save}).
     */
    public SavedState saveState() {
        return governor.underLock(new Governor.LockedWork<SavedState>() {
            @Override
            public SavedState run(long nowNanos) {
                return LearnedState.save(governor.routes, governor.limitList, nowNanos, governor.clock.epochMillis());
            }
        });
    }

    /**
     * Brings back what a previous run saved ({@link LearnedState#restore}). The caller checked the
     * state is fresh.
     *
     * @return how many scopes and buckets came back
     */
    public int restoreState(SavedState state) {
        // not a lambda: the agent restores as the application starts (docs/startup-figures.md)
        return governor.underLock(new Governor.LockedWork<Integer>() {
            @Override
            public Integer run(long nowNanos) {
                return LearnedState.restore(
                        governor.routes, governor.limitList, state, nowNanos, governor.clock.epochMillis());
            }
        });
    }

    /**
     * Brings back only what budgets (spend limits) spent in periods still running, from a state
     * file of any age ({@link LearnedState#restoreBudgets}). Returns how many buckets came back.
     */
    public int restoreBudgets(SavedState state) {
        return governor.underLock(nowNanos ->
                LearnedState.restoreBudgets(governor.limitList, state, nowNanos, governor.clock.epochMillis()));
    }
}
