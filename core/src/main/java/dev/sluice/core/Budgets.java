package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.FleetRoom;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.schedule.Timer;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The governor's spend limits seen as budgets: where each bucket stands ({@link BudgetStatus}),
 * how its calls were settled (from the provider's usage, from Sluice's own count of a stream cut
 * short, or as reserved when usage never came), and the alerts when one passes its warning share
 * or runs out, once per period and bucket. Alerts are found under the governor's lock and
 * delivered (logged, handed to listeners such as the JMX beans) on the governor's timer thread,
 * never on the caller's.
 */
final class Budgets {

    private static final LazyLogger LOG = LazyLogger.of(Budgets.class);

    /** How the calls charged to one spend limit were settled. */
    static final class Settlements {
        final LongAdder fromUsage = new LongAdder();
        final LongAdder fromCount = new LongAdder();
        final LongAdder asReserved = new LongAdder();
    }

    private final Clock clock;
    private final Timer timer;
    /** Told when a budget's spend changed: worth keeping across a restart (the state file). */
    private final Runnable spent;

    private volatile String currency = "USD";
    private final Map<String, Settlements> settlements = new ConcurrentHashMap<>();
    /** Per bucket: {period id, highest level alerted in it (0 none, 1 warning, 2 exhausted)}. Lock held. */
    private final Map<Bucket, long[]> alerted = new WeakHashMap<>();

    private final Queue<BudgetAlert> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean deliveryScheduled = new AtomicBoolean();
    private final AtomicBoolean keepScheduled = new AtomicBoolean();
    private final List<Consumer<BudgetAlert>> listeners = new CopyOnWriteArrayList<>();

    Budgets(Clock clock, Timer timer, Runnable spent) {
        this.clock = clock;
        this.timer = timer;
        this.spent = spent;
    }

    static boolean isBudget(Bucket b) {
        return b.limit().dimension() == Dimension.SPEND;
    }

    String currency() {
        return currency;
    }

    void currency(String c) {
        this.currency = c == null || c.isEmpty() ? "USD" : c;
    }

    void addListener(Consumer<BudgetAlert> listener) {
        listeners.add(listener);
    }

    void removeListener(Consumer<BudgetAlert> listener) {
        listeners.remove(listener);
    }

    Settlements settlements(String limitId) {
        return settlements.computeIfAbsent(limitId, k -> new Settlements());
    }

    /**
     * The refusal of a call that a budget (a spend limit) on its path has no room for, or null. A
     * budget is not a rate: waiting for its period to end would mean hours or days, and a class that
     * passes through when its queue is full does not pass a budget. What a budget may give back soon
     * is the worst cases reserved by the calls in flight, less what they turn out to cost: when
     * {@code mayWait} and the room plus those reservations would cover the call, it is not refused
     * but waits in its queue (within its class's and its caller's deadline) for them to settle; it
     * is refused once they cannot cover it, or at its deadline ({@code mayWait} false). For a
     * budget in a shared store, only what the store said since the call arrived counts: a new call
     * queues and asks the store, whose answer decides. A refusal raises the budget's exhaustion
     * alert. Lock held.
     */
    Rejection refusal(
            CallContext call,
            Demand demand,
            Bucket[] path,
            int guarantee,
            long nowNanos,
            long nowMillis,
            long waitedNanos,
            boolean mayWait) {
        for (Bucket b : path) {
            if (!Budgets.isBudget(b) || !b.limit().enforced()) {
                continue;
            }
            long amount = Charges.amountFor(b, demand);
            if (amount == 0) {
                continue;
            }
            long need = b.roomNeeded(guarantee, amount);
            long room = budgetRoom(b, guarantee, nowNanos - waitedNanos, nowNanos, nowMillis);
            if (room >= need || mayWait && room + Math.max(0, b.reserved()) >= need) {
                continue;
            }
            BudgetStatus status = status(b, nowNanos, nowMillis, need);
            refused(b, status, nowMillis);
            b.limit().countRejection(GatewayDecision.BUDGET_EXHAUSTED);
            long retryAfter = status.resetsAtMillis() > nowMillis ? status.resetsAtMillis() - nowMillis : 0;
            return Rejections.forCall(GatewayDecision.BUDGET_EXHAUSTED, call, demand)
                    .limiter(Dimension.SPEND)
                    .scope(b.scopeName())
                    .waitedMillis(waitedNanos / 1_000_000)
                    .retryAfterMillis(retryAfter)
                    .budget(status)
                    .detail("this call may cost up to " + BudgetStatus.money(amount, status.currency()) + ", "
                            + BudgetStatus.money(status.leftMicros(), status.currency()) + " left; "
                            + status.describe())
                    .build();
        }
        return null;
    }

    /**
     * Where a bucket of a spend limit stands now. Lock held.
     *
     * @param needed what a refused call asked, for a rolling window's "room again at"; 0 for none
     */
    BudgetStatus status(Bucket b, long nowNanos, long nowMillis, long needed) {
        Limit l = b.limit();
        long capacity = b.capacity();
        long reserved = Math.max(0, b.reserved());
        long spent = spentMicros(b, nowNanos, nowMillis);
        long start = -1;
        long resets = -1;
        String period;
        if (b.isWindowed()) {
            start = l.windowStartAt(nowMillis);
            resets = l.nextWindowStartAt(nowMillis);
            period = l.spec().period() != null
                    ? l.spec().period().configName()
                    : l.spec().algorithm() == dev.sluice.config.Algorithm.DAILY_RESET ? "day" : window(l);
        } else {
            period = window(l);
            if (needed > 0) {
                long wait = b.nanosUntilRoom(needed, nowNanos, nowMillis);
                resets = wait >= Bucket.ON_RELEASE ? -1 : nowMillis + Math.max(1, wait / 1_000_000);
            }
        }
        String scope = b.scopeValue() == null ? l.id() : b.scopeName();
        return new BudgetStatus(l.id(), scope, currency, period, capacity, spent, reserved, start, resets);
    }

    private static String window(Limit l) {
        long s = l.windowMillis() / 1000;
        if (s > 0 && s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s > 0 && s % 3_600 == 0) {
            return s / 3_600 + "h";
        }
        return s > 0 && s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    /** A permit charged to this budget bucket was settled this way. Lock held. */
    void settled(Bucket b, Object settlement, long nowNanos) {
        Settlements s = settlements(b.limit().id());
        if (settlement == Permit.AS_RESERVED) {
            s.asReserved.increment();
        } else if (settlement instanceof Usage) {
            if (((Usage) settlement).reportedByProvider()) {
                s.fromUsage.increment();
            } else {
                s.fromCount.increment();
            }
        } else {
            return; // cancelled or refused: nothing was spent
        }
        askToKeep();
        // an unenforced budget still warns: it is there to be watched
        long nowMillis = clock.epochMillis();
        long capacity = b.capacity();
        double share = capacity <= 0 ? 0 : (double) spentMicros(b, nowNanos, nowMillis) / capacity;
        double warnAt = b.limit().spec().warnAt();
        if (share >= warnAt) {
            // the status (an allocation) only for a settlement that may cross a share
            BudgetStatus status = status(b, nowNanos, nowMillis, 0);
            if (share >= 1) {
                raise(b, BudgetAlert.Level.EXHAUSTED, 1, status, nowMillis);
            } else {
                raise(b, BudgetAlert.Level.WARNING, warnAt, status, nowMillis);
            }
        }
    }

    /**
     * Asks the state keeper to save, from the timer's thread: the keeper's listener is called
     * outside the governor's lock, as {@code AnswerLearner.onLearned} promises. One task at a time.
     */
    private void askToKeep() {
        if (keepScheduled.compareAndSet(false, true)) {
            timer.schedule(
                    () -> {
                        keepScheduled.set(false);
                        spent.run();
                    },
                    0);
        }
    }

    /** What settled calls spent in the bucket's current period, fleet-wide as last heard. Lock held. */
    private static long spentMicros(Bucket b, long nowNanos, long nowMillis) {
        long reserved = Math.max(0, b.reserved());
        FleetRoom fleet = b.fleetRoom();
        long room = fleet == null ? b.roomAsCounted(nowNanos, nowMillis) : fleet.asCounted(nowNanos, nowMillis);
        return Math.max(0, b.capacity() - room - reserved);
    }

    /**
     * The room a budget has for a call of this tenant: the local room, plus what a shared store said
     * is left fleet-wide beyond it since {@code sinceNanos}; {@link Long#MAX_VALUE} when the store
     * has not said since. Lock held.
     */
    private static long budgetRoom(Bucket b, int tenant, long sinceNanos, long nowNanos, long nowMillis) {
        long local = b.roomFor(tenant, nowNanos, nowMillis);
        FleetRoom fleet = b.fleetRoom();
        long inStore = fleet == null ? 0 : fleet.beyondOwn(sinceNanos, nowNanos, nowMillis);
        return inStore == Long.MAX_VALUE ? Long.MAX_VALUE : local + inStore;
    }

    /** A call was refused for want of this budget: it is exhausted for such calls. Lock held. */
    void refused(Bucket b, BudgetStatus status, long nowMillis) {
        raise(b, BudgetAlert.Level.EXHAUSTED, 1, status, nowMillis);
    }

    private void raise(Bucket b, BudgetAlert.Level level, double threshold, BudgetStatus status, long nowMillis) {
        long period = periodId(b, status, nowMillis);
        long[] seen = alerted.get(b);
        if (seen == null) {
            seen = new long[] {Long.MIN_VALUE, 0};
            alerted.put(b, seen);
        }
        int rank = level == BudgetAlert.Level.WARNING ? 1 : 2;
        if (seen[0] == period && seen[1] >= rank) {
            return; // already said in this period
        }
        if (seen[0] != period) {
            seen[0] = period;
            seen[1] = 0;
        }
        seen[1] = rank; // passing both shares at once sends the exhaustion alone
        pending.add(new BudgetAlert(level, threshold, status));
        if (deliveryScheduled.compareAndSet(false, true)) {
            timer.schedule(this::deliver, 0);
        }
    }

    /** The period an alert belongs to: a calendar or fixed window's start; a rolling window's length slot. */
    private static long periodId(Bucket b, BudgetStatus status, long nowMillis) {
        if (status.periodStartMillis() >= 0) {
            return status.periodStartMillis();
        }
        long window = b.limit().windowMillis();
        return window > 0 ? Math.floorDiv(nowMillis, window) : 0;
    }

    private void deliver() {
        deliveryScheduled.set(false);
        BudgetAlert a;
        while ((a = pending.poll()) != null) {
            if (a.level() == BudgetAlert.Level.EXHAUSTED) {
                LOG.get().warn("sluice: {}", a.message());
            } else {
                LOG.get().info("sluice: {}", a.message());
            }
            for (Consumer<BudgetAlert> l : listeners) {
                try {
                    l.accept(a);
                } catch (Throwable t) {
                    LOG.get().debug("a budget listener failed: {}", t.toString());
                }
            }
        }
    }
}
