package dev.sluice.core.quota;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Fair shares of one provider scope's learned budgets between the tenants using it now, so a
 * tenant that is only between two calls keeps its share.
 *
 * <p>The queue shares waiting calls fairly, but it is work-conserving: a tenant with one caller has
 * no call waiting while its last one is out, so the room refilled meanwhile goes to a tenant with
 * eight, and a full bucket goes to whoever asks first. Here each active tenant holds a credit: a
 * part of each learned bucket's room set aside for it, refilled at its weighted share of the
 * bucket's rate up to its share of the burst. A call may take the room no other active tenant
 * holds; a tenant spends its own credit first. Credits are a partition of the room (their sum never
 * exceeds it), and a tenant whose credit is full takes no more of the refill, so what it does not
 * use flows to the others, as with configured guarantees (see {@link Guarantees}); this needs no
 * config and follows who is active. A call larger than half the tenant's share of a burst could
 * wait for ever beside full credits, so it is not held by them: such a bucket is too small to share.
 *
 * <p>Credits partition only the room no guaranteed tenant's reserve holds ({@link Guarantees}):
 * a reserve is its tenant's alone already, so a credit of another tenant carved out of it would
 * book the same room twice, and neither could use it while both waited.
 *
 * <p>A tenant is active while a call of its is waiting or out, and for {@link #GRACE_NANOS} after
 * its last one ended. With one active tenant there is nothing to share: the gate stays open and
 * the governor's lock-free lane may serve that tenant alone ({@link #laneServes}); its lane calls
 * are not followed one by one, so once a grace period it comes back through the lock, which finds
 * whether it is still alone. Credits are debited with what a call reserves and not refunded when
 * it used less: every tenant is charged the same way. Guarded by the governor's lock, except
 * {@link #laneServes}.
 */
public final class TenantShares {

    /** How long a tenant stays active after its last call ended: the time to send its next one. */
    static final long GRACE_NANOS = 2_000_000_000L;

    /**
     * How often a call waiting for its fair share looks again at the latest: the estimate of when
     * it fits assumes the other tenants' credits keep filling, which a tenant going quiet or a
     * bucket filling up cuts short. As often as the governor's clock reading is refreshed.
     */
    static final long LOOK_AGAIN_NANOS = 100_000_000L;

    /** The most tenants followed per scope; beyond, the newest are not given a credit (the queue still shares). */
    static final int MAX_TENANTS = 256;

    private static final class Tenant {
        final String name;
        double weight = 1;
        int inFlight;
        long lastActiveNanos;
        /** Credit per learned bucket (same index as the scope's learned buckets). */
        double[] credit = new double[0];

        long creditAtNanos;

        Tenant(String name) {
            this.name = name;
        }
    }

    private final Map<String, Tenant> tenants = new HashMap<>();
    private final List<Tenant> active = new ArrayList<>();
    private double activeWeight;
    /** The only active tenant, or null when none or several: the lane serves only that tenant. */
    private volatile String soleTenant;

    /** Whether the lock-free lane may admit a call of {@code tenant} in this scope. Any thread. */
    public boolean laneServes(String tenant) {
        String sole = soleTenant;
        return sole != null && sole.equals(nameOf(tenant));
    }

    /** Calls without a tenant share one name. */
    private static String nameOf(String tenant) {
        return tenant == null ? "" : tenant;
    }

    /** Whether several tenants share the scope now (for status views and tests). */
    public int activeTenants() {
        return active.size();
    }

    /** A call of {@code tenant} is waiting for admission: the tenant is active. */
    public void waiting(String tenant, double weight, Bucket[] learned, long nowNanos, long nowMillis) {
        touch(tenant, weight, learned, nowNanos, nowMillis);
    }

    /** Why a call waits for its fair share: the bucket, what it needs, what is free beside the others' credit, how long. */
    public static final class Wait {
        public final Bucket bucket;
        public final long needed;
        public final long free;
        public final long nanos;

        Wait(Bucket bucket, long needed, long free, long nanos) {
            this.bucket = bucket;
            this.needed = needed;
            this.free = free;
            this.nanos = nanos;
        }
    }

    /**
     * Whether a call of {@code tenant} needing {@code amounts} of the scope's {@code learned} buckets
     * fits beside what the other active tenants hold: null when it does, else the longest wait.
     * The buckets' own room is checked by the governor as usual; this is one more condition.
     */
    public Wait waitFor(
            String tenant,
            double weight,
            int guarantee,
            Bucket[] learned,
            long[] amounts,
            long nowNanos,
            long nowMillis) {
        Tenant t = touch(tenant, weight, learned, nowNanos, nowMillis);
        if (t == null || active.size() < 2) {
            return null;
        }
        Wait longest = null;
        double share = t.weight / activeWeight;
        for (int b = 0; b < learned.length && b < amounts.length; b++) {
            long amount = amounts[b];
            double rate = learned[b].refillPerNano();
            if (amount <= 0 || rate <= 0 || amount > share * learned[b].limit().burst() / 2) {
                continue; // not shared by time, or too small a burst to share (see the class comment)
            }
            double othersHeld = 0;
            double othersFilling = 0;
            for (Tenant u : active) {
                if (u != t) {
                    othersHeld += u.credit[b];
                    if (u.credit[b] < cap(u, learned[b])) {
                        othersFilling += u.weight / activeWeight;
                    }
                }
            }
            // What the others hold never leaves this call without room once the bucket is nearly
            // full: a full bucket refills no more, so room held for tenants between their calls
            // while this one waits would be capacity lost, not shared. Nearly: a unit less for a
            // mirror that follows the provider's whole-unit figures, and a clock tick's refill
            // less, so the call goes before the bucket fills up, not after.
            double ceiling = learned[b].ceilingFor(guarantee);
            double held = Math.min(othersHeld, Math.max(0, ceiling - amount - 1 - rate * LOOK_AGAIN_NANOS));
            // the room this tenant may use (its own reserve included) less what the others hold
            double room = learned[b].exactRoomFor(guarantee, nowNanos, nowMillis);
            double free = room - held;
            double missing = amount - free;
            if (missing <= 1e-9) {
                continue;
            }
            // what others hold does not grow past their caps: the rest of the refill is free room
            double growth = rate * Math.max(share, 1 - othersFilling);
            // and once the bucket is full, the call fits: look again then at the latest, and at
            // least every LOOK_AGAIN_NANOS (tenants go quiet, credits shrink as tenants join, and
            // no event says so)
            double untilFull = Math.max(0, ceiling - room) / rate;
            long nanos = (long) Math.min(LOOK_AGAIN_NANOS, Math.ceil(Math.min(missing / growth, untilFull)));
            if (longest == null || nanos > longest.nanos) {
                longest = new Wait(learned[b], amount, (long) Math.floor(Math.max(0, free)), Math.max(1, nanos));
            }
        }
        return longest;
    }

    /** A call of {@code tenant} was admitted, taking {@code amounts} of the learned buckets; true when counted in flight. */
    public boolean admitted(
            String tenant, double weight, Bucket[] learned, long[] amounts, long nowNanos, long nowMillis) {
        // the buckets were charged already: no refresh here, which would read that as lost room
        Tenant t = tenants.get(nameOf(tenant));
        if (t == null) {
            t = touch(tenant, weight, learned, nowNanos, nowMillis);
            if (t == null) {
                return false;
            }
        }
        fit(t, learned);
        t.lastActiveNanos = nowNanos;
        for (int b = 0; b < learned.length && b < amounts.length; b++) {
            if (amounts[b] > 0) {
                // its own credit first; the rest came from room nobody held
                t.credit[b] = Math.max(0, t.credit[b] - amounts[b]);
            }
        }
        t.inFlight++;
        return true;
    }

    /** A call counted by {@link #admitted} ended. */
    public void ended(String tenant, long nowNanos) {
        Tenant t = tenants.get(nameOf(tenant));
        if (t != null) {
            t.inFlight = Math.max(0, t.inFlight - 1);
            t.lastActiveNanos = nowNanos;
        }
    }

    /** Brings the credits up to now, drops the tenants gone quiet, and marks this one active. */
    private Tenant touch(String tenantName, double weight, Bucket[] learned, long nowNanos, long nowMillis) {
        String tenant = nameOf(tenantName);
        Tenant t = tenants.get(tenant);
        if (t == null && tenants.size() >= MAX_TENANTS) {
            refresh(learned, nowNanos, nowMillis);
            t = tenants.get(tenant);
            if (t == null && tenants.size() >= MAX_TENANTS) {
                return null;
            }
        }
        boolean joins = t == null;
        if (joins) {
            t = new Tenant(tenant);
            t.weight = weight > 0 ? weight : 1;
            t.creditAtNanos = nowNanos;
            tenants.put(tenant, t);
            active.add(t);
            activeWeight += t.weight;
        }
        t.lastActiveNanos = nowNanos;
        refresh(learned, nowNanos, nowMillis);
        if (joins && active.size() > 1) {
            // a tenant joining holds its share of what nobody holds at once: a full bucket is shared too
            for (int b = 0; b < learned.length; b++) {
                double held = 0;
                for (Tenant u : active) {
                    held += u.credit[b];
                }
                double unheld = learned[b].exactRoomFor(-1, nowNanos, nowMillis) - held;
                t.credit[b] = Math.max(0, Math.min(cap(t, learned[b]), unheld));
            }
        }
        return t;
    }

    /**
     * Drops the tenants gone quiet, refills every credit at its share of each bucket's rate up to its
     * cap, then keeps the credits a partition of each bucket's room.
     */
    private void refresh(Bucket[] learned, long nowNanos, long nowMillis) {
        Iterator<Tenant> it = active.iterator();
        while (it.hasNext()) {
            Tenant u = it.next();
            if (u.inFlight == 0 && nowNanos - u.lastActiveNanos > GRACE_NANOS) {
                it.remove();
                tenants.remove(u.name);
                activeWeight -= u.weight;
            }
        }
        if (active.isEmpty()) {
            activeWeight = 0;
        }
        soleTenant = active.size() == 1 ? active.get(0).name : null;
        if (active.size() < 2) {
            for (Tenant u : active) {
                fit(u, learned);
                u.creditAtNanos = nowNanos; // nothing to share: nothing set aside
            }
            return;
        }
        for (int b = 0; b < learned.length; b++) {
            double rate = learned[b].refillPerNano();
            double held = 0;
            for (Tenant u : active) {
                fit(u, learned);
                long elapsed = nowNanos - u.creditAtNanos;
                double cap = cap(u, learned[b]);
                if (elapsed > 0 && u.credit[b] < cap) {
                    u.credit[b] = Math.min(cap, u.credit[b] + elapsed * rate * u.weight / activeWeight);
                }
                u.credit[b] = Math.min(u.credit[b], cap); // shares shrink as tenants join
                held += u.credit[b];
            }
            double room = Math.max(0, learned[b].exactRoomFor(-1, nowNanos, nowMillis));
            if (held > room) {
                double scale = room / held;
                for (Tenant u : active) {
                    u.credit[b] *= scale;
                }
            }
        }
        for (Tenant u : active) {
            u.creditAtNanos = nowNanos;
        }
    }

    /** The most a tenant's credit holds in a bucket: its weighted share of the burst. */
    private double cap(Tenant t, Bucket bucket) {
        return activeWeight <= 0 ? 0 : bucket.limit().burst() * t.weight / activeWeight;
    }

    /** Grows a tenant's credits when the scope learned a new bucket. */
    private static void fit(Tenant t, Bucket[] learned) {
        if (t.credit.length < learned.length) {
            t.credit = java.util.Arrays.copyOf(t.credit, learned.length);
        }
    }
}
