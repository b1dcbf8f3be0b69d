package dev.sluice.core;

import dev.sluice.core.schedule.ClassQueue;
import dev.sluice.core.schedule.TrafficClass;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The calls waiting for admission: one queue per traffic class ({@link ClassQueue}: one FIFO per
 * tenant, weighted deficit round robin between tenants), offered their turns highest class first
 * or, with weighted classes, in turns in proportion to each class's priority; and every waiting
 * call's deadline, soonest first, so the governor finds the calls whose wait ran out without a
 * walk. Guarded by the governor's lock, but for the tenants' weights, which the operators' controls
 * change without it.
 */
final class WaitingCalls {

    /** Cost units a class of priority 1 admits per turn under weighted class scheduling. */
    private static final long CLASS_QUANTUM = 256;

    private final Map<String, TrafficClass> classes;
    private final Map<String, ClassQueue<Waiter>> queues = new LinkedHashMap<>();
    /** The same queues, highest priority first. */
    private final List<ClassQueue<Waiter>> byPriority;

    private final boolean weightedClasses;
    /** Each tenant's weight in fair sharing (1 when not set); changed live. */
    private final Map<String, Double> tenantWeights;

    private final ToDoubleFunction<String> weights =
            new ToDoubleFunction<String>() { // not this::weightOf: built at start
                @Override
                public double applyAsDouble(String tenant) {
                    return weightOf(tenant);
                }
            };

    private final PriorityQueue<Waiter> deadlines = new PriorityQueue<>(new Comparator<Waiter>() {
        @Override
        public int compare(Waiter a, Waiter b) {
            return Long.compare(a.deadlineNanos, b.deadlineNanos);
        }
    });

    /**
     * @param classes the traffic classes by name; {@link CallContext#DEFAULT_CLASS} among them
     * @param weightedClasses classes take turns by priority instead of strict priority
     */
    WaitingCalls(Map<String, TrafficClass> classes, Map<String, Double> tenantWeights, boolean weightedClasses) {
        this.classes = Collections.unmodifiableMap(new LinkedHashMap<>(classes));
        this.tenantWeights = new ConcurrentHashMap<>(tenantWeights);
        this.weightedClasses = weightedClasses;
        List<ClassQueue<Waiter>> ordered = new ArrayList<>();
        for (TrafficClass c : this.classes.values()) {
            ClassQueue<Waiter> q = new ClassQueue<>(c);
            queues.put(c.name(), q);
            ordered.add(q);
        }
        ordered.sort(new Comparator<ClassQueue<Waiter>>() {
            @Override
            public int compare(ClassQueue<Waiter> a, ClassQueue<Waiter> b) {
                return Integer.compare(
                        b.trafficClass().priority(), a.trafficClass().priority()); // highest first
            }
        });
        this.byPriority = ordered;
    }

    Map<String, TrafficClass> classes() {
        return classes;
    }

    /** The call's traffic class; the default class for a name no class has. */
    TrafficClass classOf(CallContext call) {
        TrafficClass c = classes.get(call.trafficClass());
        return c != null ? c : classes.get(CallContext.DEFAULT_CLASS);
    }

    /** Whether classes take turns by priority rather than strictly highest first. */
    boolean weightedClasses() {
        return weightedClasses;
    }

    double weightOf(String tenant) {
        Double w = tenantWeights.get(tenant);
        return w == null ? 1.0 : w;
    }

    /** Any thread: the next dispatch uses it. */
    void setWeight(String tenant, double weight) {
        tenantWeights.put(tenant, weight);
    }

    /** Whether the class's queue holds as many calls as it may. */
    boolean isFull(TrafficClass cls) {
        return queues.get(cls.name()).size() >= cls.maxQueueDepth();
    }

    /** Queues a call in its class, with its deadline. */
    void add(Waiter w) {
        queues.get(w.trafficClass.name()).add(w);
        deadlines.add(w);
    }

    /** Takes a call out of its class's queue; its deadline goes when it comes due. */
    void remove(Waiter w) {
        queues.get(w.trafficClass.name()).remove(w);
    }

    /**
     * The next call whose deadline has come, taken out of its queue; null when none has. Calls that
     * already left their queue are dropped on the way.
     */
    Waiter pollDue(long nowNanos) {
        Waiter w;
        while ((w = deadlines.peek()) != null && (w.done || nowNanos - w.deadlineNanos >= 0)) {
            deadlines.poll();
            if (!w.done) {
                remove(w);
                return w;
            }
        }
        return null;
    }

    /** The call whose deadline comes first (perhaps one that already left its queue), or null. */
    Waiter firstDeadline() {
        return deadlines.peek();
    }

    /**
     * Offers queued calls their turn: each class in priority order, or with weighted classes in
     * turns of its priority's worth of cost until no class admits any more; inside a class, by
     * tenants' fair shares.
     */
    void dispatch(ClassQueue.Offer<Waiter> offer) {
        if (weightedClasses) {
            boolean progress = true;
            while (progress) {
                progress = false;
                for (ClassQueue<Waiter> q : byPriority) {
                    if (!q.isEmpty()) {
                        long turn = Math.max(1, q.trafficClass().priority()) * CLASS_QUANTUM;
                        progress |= q.dispatch(weights, offer, turn) > 0;
                    }
                }
            }
        } else {
            for (ClassQueue<Waiter> q : byPriority) {
                if (!q.isEmpty()) {
                    q.dispatch(weights, offer, Long.MAX_VALUE);
                }
            }
        }
    }

    /** Every queue, highest priority first. */
    List<ClassQueue<Waiter>> byPriority() {
        return byPriority;
    }

    /** Calls queued in a class; 0 for an unknown class. */
    int depth(String trafficClass) {
        ClassQueue<Waiter> q = queues.get(trafficClass);
        return q == null ? 0 : q.size();
    }
}
