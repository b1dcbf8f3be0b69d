package dev.sluice.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.RemovalListener;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Guarantees;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.state.LearnedState;
import dev.sluice.core.store.QuotaStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Where a call is counted: the buckets of the configured limits on its path and its provider
 * scope (with what that scope learned), resolved once and kept by caller ({@link
 * CallContext#cachedRoute}) and by what a route depends on ({@link RouteKey}). Building a route
 * and the scope table are guarded by the governor's lock; {@link #known} is also read by the lane
 * without it (Caffeine's look-ups are thread-safe).
 */
final class Routes implements LearnedState.Scopes {

    /**
     * How long a resolved route is kept from its resolution: less than the least a per-value
     * bucket is kept after its last look-up (a minute and more), so resolving again keeps a busy
     * bucket from being evicted.
     */
    private static final Duration ROUTE_TTL = Duration.ofSeconds(30);

    private static final long ROUTE_TTL_NANOS = ROUTE_TTL.toNanos();

    /**
     * When the recent route is renewed, from its resolution or last renewal: well before {@link
     * #ROUTE_TTL}, so a timer late by seconds still renews it before a call finds it expired.
     */
    static final long RENEWAL_NANOS = ROUTE_TTL_NANOS * 2 / 3;

    private final Limit[] limits;
    private final Guarantees guarantees;
    private final QuotaStore store;
    private final GovernorStats stats;
    private final long coldStartWaitNanos;
    private final Cache<String, ProviderScope> scopes;
    private final Cache<RouteKey, Route> routes;
    /**
     * The route last found or resolved: most calls of a process come on one route, and for them
     * a comparison of keys replaces Caffeine's read (its hash table, its read buffer and, now and
     * then, its upkeep on the caller's thread), a fifth of admitting a call by the lane. Used only
     * while the table would keep it ({@link #ROUTE_TTL} from its resolution or last renewal: see
     * {@link #renewRecent}).
     */
    private volatile Route recent;

    private final Clock clock;
    /** Routes resolved so far (renewals not counted). Lock held. */
    private long resolutions;
    /**
     * The organization a provider named for a key ({@code provider|keyId} to it): the key's calls
     * then count in the organization's scope, shared with every other key of it.
     */
    private final Cache<String, String> organizationOfKey;

    Routes(
            Limit[] limits,
            Guarantees guarantees,
            QuotaStore store,
            GovernorStats stats,
            Clock clock,
            long coldStartWaitNanos) {
        this.limits = limits;
        this.guarantees = guarantees;
        this.store = store;
        this.stats = stats;
        this.coldStartWaitNanos = coldStartWaitNanos;
        this.clock = clock;
        Ticker ticker = Caches.ticker(clock);
        this.routes = Caches.builder()
                .ticker(ticker)
                .maximumSize(100_000)
                .expireAfterWrite(ROUTE_TTL)
                .build();
        this.organizationOfKey = Caches.builder()
                .ticker(ticker)
                .maximumSize(100_000)
                .expireAfterAccess(Duration.ofHours(1))
                .build();
        this.scopes = Caches.builder()
                .ticker(ticker)
                .maximumSize(100_000)
                .expireAfterAccess(Duration.ofHours(1))
                .removalListener(new RemovalListener<String, ProviderScope>() {
                    @Override
                    public void onRemoval(String k, ProviderScope s, RemovalCause c) {
                        if (s != null) {
                            s.markEvicted();
                        }
                    }
                })
                .build();
    }

    /** The caller's route when it is known and still live, else null. */
    Route known(CallContext call) {
        Route cached = call.cachedRoute;
        if (cached != null && cached.isLive()) {
            return cached;
        }
        Route known = lookUp(call.routeKey());
        if (known != null && known.isLive()) {
            call.cachedRoute = known;
            return known;
        }
        return null;
    }

    /** A route known for this caller's route key, live or not, for the lane (which checks what it needs). */
    Route forLane(CallContext call) {
        Route route = call.cachedRoute;
        if (route == null) {
            route = lookUp(call.routeKey());
            if (route != null) {
                call.cachedRoute = route;
            }
        }
        return route;
    }

    /** The route kept for {@code key}, or null. */
    private Route lookUp(RouteKey key) {
        Route last = recent;
        if (last != null && last.key.equals(key) && last.resolvedNanos + ROUTE_TTL_NANOS - clock.nanoTime() > 0) {
            return last;
        }
        Route kept = routes.getIfPresent(key);
        if (kept != null) {
            recent = kept;
        }
        return kept;
    }

    /** Resolves the caller's route now (buckets are created on first use). Lock held. */
    Route build(CallContext call, long nowNanos, long nowMillis) {
        List<Bucket> buckets = new ArrayList<>();
        for (Limit l : limits) {
            Bucket b = l.bucketFor(call, nowNanos, nowMillis);
            if (b != null) {
                buckets.add(b);
            }
        }
        String organizationKeyId =
                call.organization() != null || call.apiKeyId() == null ? null : organizationKeyId(call);
        String organization =
                organizationKeyId == null ? call.organization() : organizationOfKey.getIfPresent(organizationKeyId);
        String scopeKey = organization == null ? call.providerScopeKey() : organizationScopeKey(call, organization);
        // Not scopes.get(key, function), here and in scopeOf: under the lock a look-up then a put is
        // as good, and a lambda is a class the JVM spins on the first call (docs/startup-figures.md).
        ProviderScope scope = scopes.getIfPresent(scopeKey);
        if (scope == null) {
            scope = newScope(scopeKey, displayName(call, organization), buckets, nowNanos);
            scopes.put(scopeKey, scope);
        }
        Route r = new Route(
                buckets.toArray(new Bucket[0]),
                scope,
                guarantees.indexOf(call.tenant()),
                stats.tenant(call.tenant()),
                stats.trafficClass(call.trafficClass()),
                call.routeKey(),
                organizationKeyId,
                organizationKeyId == null ? null : organization,
                nowNanos);
        call.cachedRoute = r;
        routes.put(r.key, r);
        recent = r;
        resolutions++;
        return r;
    }

    /**
     * Keeps the recent route resolved while its tenant still calls, so that calls on it never find
     * it expired: resolving a route again is a branch a warm caller takes every 30 s, and the JIT,
     * having compiled it out, throws the caller's compiled code away to take it
     * (docs/benchmarks.md). Renewing does what resolving again would for the route's state: reads
     * its per-value buckets, its scope and its key's organization (so none expires while in use)
     * and starts its lifetime again. Returns the delay to the next renewal, or -1 when there is no
     * recent route, it is no longer live, its tenant made no call since the last renewal (an idle
     * route expires, and the next call resolves it again) or its key's organization changed. Lock
     * held.
     */
    long renewRecent(long nowNanos) {
        Route r = recent;
        if (r == null || !r.isLive()) {
            return -1;
        }
        long due = r.resolvedNanos + RENEWAL_NANOS - nowNanos;
        if (due > 0) {
            return due; // resolved since the last renewal was planned
        }
        long tenantCalls = r.tenantCalls();
        if (tenantCalls == r.tenantCallsAtRenewal) {
            return -1;
        }
        // a key moved to another organization: the route expires, and its next resolution counts
        // the key's calls in the new organization's scope (reading the entry also keeps it)
        if (r.organizationKeyId != null
                && !Objects.equals(organizationOfKey.getIfPresent(r.organizationKeyId), r.learnedOrganization)) {
            return -1;
        }
        r.tenantCallsAtRenewal = tenantCalls;
        for (Bucket b : r.configured) {
            b.limit().keepAlive(b);
        }
        scopes.getIfPresent(r.scope.key());
        r.resolvedNanos = nowNanos;
        routes.put(r.key, r);
        return RENEWAL_NANOS;
    }

    /** Routes resolved so far, renewals not counted. Lock held. */
    long resolutions() {
        return resolutions;
    }

    /**
     * A response named the organization the call's key counts against. From now on every call of
     * that key counts in the organization's scope, shared with the organization's other keys; the
     * scope the key had on its own is retired (what it learned was the organization's budget seen
     * through one key: the organization's scope learns it again from this very response, so it is
     * merged, not doubled; a pause it held carries over). An organization the request or the
     * config named wins over the one a response names. Lock held.
     */
    void adoptOrganization(CallContext call, String organization, long nowNanos) {
        if (call.organization() != null || call.apiKeyId() == null) {
            return;
        }
        // Every answer names the organization again: one the call's route has seen adopted costs
        // neither the key's name nor a look-up (a route lives 30 s; its rebuild reads the entry,
        // which keeps it from expiring).
        Route route = call.cachedRoute;
        if (route != null && organization.equals(route.organizationConfirmed)) {
            return;
        }
        String keyId = organizationKeyId(call);
        if (organization.equals(organizationOfKey.getIfPresent(keyId))) {
            if (route != null) {
                route.organizationConfirmed = organization;
            }
        } else {
            organizationOfKey.put(keyId, organization);
            ProviderScope own = scopes.getIfPresent(call.providerScopeKey());
            ProviderScope shared = scopeOf(organizationScopeKey(call, organization), displayName(call, organization));
            if (own != null && own != shared) {
                if (own.isPaused(nowNanos)) {
                    shared.pauseUntil(own.pausedUntilNanos());
                }
                own.carrySlowStartTo(shared);
                scopes.invalidate(call.providerScopeKey()); // its routes see it evicted and resolve again
            }
        }
    }

    /** The key {@link #organizationOfKey} knows a call's key by. */
    private static String organizationKeyId(CallContext call) {
        return call.provider() + '|' + call.apiKeyId();
    }

    private static String organizationScopeKey(CallContext call, String organization) {
        return call.provider() + "|org:" + organization + '|' + (call.model() == null ? "-" : call.model());
    }

    /** Which organization each key counts against ({@code provider|keyId} to it), for a state file. */
    @Override
    public java.util.Map<String, String> organizations() {
        return new java.util.LinkedHashMap<>(organizationOfKey.asMap());
    }

    /** Brings back what a previous run learned: the keys' organizations, and a scope by its key. Lock held. */
    @Override
    public void restoreOrganization(String keyId, String organization) {
        organizationOfKey.put(keyId, organization);
    }

    /** The scope of this key (as {@link ProviderScope#key()} names it), created warm: it is being restored. */
    @Override
    public ProviderScope restoreScope(String key, String displayName) {
        return scopeOf(key, displayName);
    }

    private ProviderScope scopeOf(String key, String displayName) {
        ProviderScope scope = scopes.getIfPresent(key);
        if (scope == null) {
            scope = new ProviderScope(key, displayName, guarantees, store);
            scopes.put(key, scope);
        }
        return scope;
    }

    /** Provider scopes known now (learned limits, pauses). */
    @Override
    public Collection<ProviderScope> scopes() {
        return scopes.asMap().values();
    }

    /**
     * A provider scope seen for the first time. When nothing on the route mirrors the provider's
     * limits (none declared, none learned yet), it starts slow: its first call goes alone and the
     * others wait for that answer's headers; after {@code coldStartWait} without one, a few more
     * may go (see {@code quota/SlowStart}).
     */
    private ProviderScope newScope(String key, String displayName, List<Bucket> routeBuckets, long nowNanos) {
        ProviderScope scope = new ProviderScope(key, displayName, guarantees, store);
        if (coldStartWaitNanos > 0 && !anyMirrorsProvider(routeBuckets)) {
            scope.startCold(nowNanos + coldStartWaitNanos);
            stats.onColdStart();
        }
        return scope;
    }

    private static boolean anyMirrorsProvider(List<Bucket> buckets) {
        for (Bucket b : buckets) {
            if (b.limit().mirrorsProvider()) {
                return true;
            }
        }
        return false;
    }

    /** E.g. {@code openai/k_3f9a1c/gpt-4o-mini}, or {@code openai/org-x/gpt-4o-mini} once the organization is known. */
    private static String displayName(CallContext call, String organization) {
        StringBuilder s = new StringBuilder(call.provider());
        if (organization != null) {
            s.append('/').append(organization);
        } else if (call.apiKeyId() != null) {
            s.append('/').append(call.apiKeyId());
        }
        if (call.region() != null) {
            s.append('/').append(call.region());
        }
        if (call.model() != null) {
            s.append('/').append(call.model());
        }
        return s.toString();
    }
}
