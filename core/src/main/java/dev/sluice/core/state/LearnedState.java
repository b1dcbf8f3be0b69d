package dev.sluice.core.state;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.ProviderScope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What a governor learned, taken into a {@link SavedState} and brought back from one: every
 * provider scope's learned budgets and pause, the keys' organizations, and the room left in the
 * configured buckets. The governor's controls call these under its lock ({@link
 * dev.sluice.core.GovernorControls#saveState}), at one clock reading, with every
 * settlement applied; {@link StateKeeper} decides when, and whether a file is fresh enough.
 */
public final class LearnedState {

    private LearnedState() {}

    /** The governor's provider scopes and the keys' organizations, as a state file reads and restores them. */
    public interface Scopes {
        /** Provider scopes known now. */
        Collection<ProviderScope> scopes();

        /** {@code provider|keyId} to the organization its answers named. */
        Map<String, String> organizations();

        void restoreOrganization(String keyId, String organization);

        /** The scope with this key, created if it is not known: it is being restored. */
        ProviderScope restoreScope(String key, String displayName);
    }

    /** Every scope's learned budgets and pause, the organizations, and the configured buckets' room. */
    public static SavedState save(Scopes known, List<Limit> limits, long nowNanos, long nowMillis) {
        List<SavedState.Scope> scopes = new ArrayList<>();
        for (ProviderScope s : known.scopes()) {
            List<SavedState.Budget> budgets = new ArrayList<>();
            for (Bucket b : s.learnedBuckets()) {
                budgets.add(s.saved(b, nowNanos, nowMillis));
            }
            long pausedUntil = s.isPaused(nowNanos) ? nowMillis + (s.pausedUntilNanos() - nowNanos) / 1_000_000L : 0;
            if (!budgets.isEmpty() || pausedUntil != 0) {
                scopes.add(new SavedState.Scope(s.key(), s.displayName(), pausedUntil, budgets));
            }
        }
        List<SavedState.ConfiguredBucket> buckets = new ArrayList<>();
        for (Limit l : limits) {
            for (Bucket b : l.buckets()) {
                long windowStart = b.isWindowed() ? l.windowStartAt(nowMillis) : -1;
                buckets.add(new SavedState.ConfiguredBucket(
                        l.id(), b.scopeValue(), b.roomAsCounted(nowNanos, nowMillis), windowStart));
            }
        }
        return new SavedState(nowMillis, scopes, buckets, known.organizations());
    }

    /**
     * Brings back learned budgets (refilled for the time since), pauses still running, the keys'
     * organizations, and the room of configured buckets (a window's only while it is still the
     * current window).
     *
     * @return how many scopes and buckets came back
     */
    public static int restore(Scopes known, List<Limit> limits, SavedState state, long nowNanos, long nowMillis) {
        long elapsed = Math.max(0, nowMillis - state.savedAtEpochMillis);
        int restored = 0;
        for (Map.Entry<String, String> organization : state.organizations.entrySet()) {
            known.restoreOrganization(organization.getKey(), organization.getValue());
        }
        for (SavedState.Scope s : state.scopes) {
            ProviderScope scope = known.restoreScope(s.key, s.displayName);
            for (SavedState.Budget b : s.budgets) {
                scope.restore(b, elapsed, nowNanos, nowMillis);
            }
            if (s.pausedUntilEpochMillis > nowMillis) {
                scope.pauseUntil(nowNanos + (s.pausedUntilEpochMillis - nowMillis) * 1_000_000L);
            }
            restored++;
        }
        return restored + restoreBuckets(limits, state, elapsed, false, nowNanos, nowMillis);
    }

    /**
     * Brings back only what budgets (spend limits) spent in periods still running, from a state
     * of any age: a month's spend must survive a restart a day later, when nothing else learned
     * then is worth trusting.
     *
     * @return how many buckets came back
     */
    public static int restoreBudgets(List<Limit> limits, SavedState state, long nowNanos, long nowMillis) {
        long elapsed = Math.max(0, nowMillis - state.savedAtEpochMillis);
        return restoreBuckets(limits, state, elapsed, true, nowNanos, nowMillis);
    }

    private static int restoreBuckets(
            List<Limit> limits, SavedState state, long elapsed, boolean budgetsOnly, long nowNanos, long nowMillis) {
        int restored = 0;
        for (SavedState.ConfiguredBucket saved : state.buckets) {
            Limit l = limit(limits, saved.limitId);
            if (l == null || (budgetsOnly && l.dimension() != Dimension.SPEND)) {
                continue;
            }
            Bucket b = l.bucketForValue(saved.scopeValue, nowNanos, nowMillis);
            if (b.isWindowed()) {
                if (l.windowStartAt(nowMillis) != saved.windowStartEpochMillis) {
                    continue; // that window is over: the new one starts full
                }
                b.lowerRoomTo(saved.room, nowNanos, nowMillis);
            } else {
                long room = ProviderScope.refilledRoom(saved.room, l.capacity(), l.windowMillis(), 0, elapsed);
                b.lowerRoomTo(room, nowNanos, nowMillis);
            }
            restored++;
        }
        return restored;
    }

    private static Limit limit(List<Limit> limits, String id) {
        for (Limit l : limits) {
            if (l.id().equals(id)) {
                return l;
            }
        }
        return null;
    }
}
