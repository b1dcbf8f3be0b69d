package dev.sluice.core.jmx;

import dev.sluice.core.Clock;
import dev.sluice.core.LazyLogger;
import dev.sluice.core.exchange.ProviderCounters;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.schedule.Timer;
import dev.sluice.core.schedule.TrafficClass;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.MBeanNotificationInfo;
import javax.management.Notification;
import javax.management.NotificationBroadcasterSupport;
import javax.management.NotificationFilter;
import javax.management.NotificationListener;
import javax.management.ObjectName;

/**
 * The Governor bean's notifications: the conditions the shipped Prometheus rules alert on
 * ({@link AlertCondition}), each sent once when it starts ({@code sluice.alert.provider429Spike}...)
 * and once when it clears ({@code sluice.alert.cleared}), rate-limited ({@link AlertStates}).
 *
 * <p>A check every {@link AlertCondition#CHECK_INTERVAL} on the governor's timer thread reads the
 * figures the beans show (the live view the beans share, counters the exchange engine keeps):
 * never on a caller's thread, never holding the governor's lock while it evaluates. It runs only
 * while someone listens: the first listener starts it (its first check is the baseline rates and
 * increases are counted from), the last one to go stops it, so a JVM nobody watches pays nothing.
 * Listeners are called on the timer thread: a listener that blocks delays the governor's timers.
 */
final class GovernorAlerts extends NotificationBroadcasterSupport {

    private static final LazyLogger LOG = LazyLogger.of(GovernorAlerts.class);

    private static final long FAULT_LOG_PERIOD_NANOS = 60_000_000_000L;

    private final SluiceMBeans beans;
    private final double timeScale;
    private final List<TrafficClassBean> classes = new ArrayList<>();
    private final List<LimitBean> configuredTokenLimits = new ArrayList<>();
    private final AtomicLong sequence = new AtomicLong();
    private volatile ObjectName name;

    /** Guarded by this: every listener registration, for knowing when the last one went. */
    private final List<Object[]> registrations = new ArrayList<>();

    /** Guarded by this: the running check, null while nobody listens. */
    private Check current;

    private long lastFaultLoggedNanos = Long.MIN_VALUE;

    GovernorAlerts(SluiceMBeans beans, double timeScale) {
        super(info());
        this.beans = beans;
        this.timeScale = timeScale;
        new AlertStates(timeScale); // refuses a bad scale now rather than on the first listener
        for (TrafficClass c : beans.controls().trafficClasses().values()) {
            classes.add(new TrafficClassBean(beans, c));
        }
        for (Limit l : beans.controls().limits()) {
            if (countsTokens(l.dimension().configName())) {
                configuredTokenLimits.add(LimitBean.configured(beans, l));
            }
        }
    }

    private static MBeanNotificationInfo[] info() {
        AlertCondition[] conditions = AlertCondition.values();
        String[] types = new String[conditions.length + 1];
        for (int i = 0; i < conditions.length; i++) {
            types[i] = conditions[i].notificationType;
        }
        types[conditions.length] = AlertCondition.CLEARED;
        return new MBeanNotificationInfo[] {
            new MBeanNotificationInfo(
                    types,
                    Notification.class.getName(),
                    "A condition the shipped Prometheus rules alert on started (provider 429 spike, queue nearly"
                            + " full or growing, token pressure, ungoverned calls, faults) or cleared; once each,"
                            + " rate-limited")
        };
    }

    /** The dimensions {@code sluice_limit_utilisation{dimension=~".*tokens"}} selects. */
    private static boolean countsTokens(String dimension) {
        return dimension.endsWith("tokens");
    }

    /** Sends from the bean named {@code n}. */
    void attach(ObjectName n) {
        this.name = n;
    }

    // ------------------------------------------------------------------ listeners

    @Override
    public void addNotificationListener(NotificationListener listener, NotificationFilter filter, Object handback) {
        super.addNotificationListener(listener, filter, handback);
        synchronized (this) {
            registrations.add(new Object[] {listener, filter, handback});
            if (current == null) {
                start();
            }
        }
    }

    @Override
    public void removeNotificationListener(NotificationListener listener) throws ListenerNotFoundException {
        super.removeNotificationListener(listener);
        synchronized (this) {
            registrations.removeIf(r -> r[0] == listener);
            stopIfNobodyListens();
        }
    }

    @Override
    public void removeNotificationListener(NotificationListener listener, NotificationFilter filter, Object handback)
            throws ListenerNotFoundException {
        super.removeNotificationListener(listener, filter, handback);
        synchronized (this) {
            for (int i = 0; i < registrations.size(); i++) {
                Object[] r = registrations.get(i);
                if (r[0] == listener && r[1] == filter && r[2] == handback) {
                    registrations.remove(i);
                    break;
                }
            }
            stopIfNobodyListens();
        }
    }

    /** Whether the checks run (someone listens). */
    synchronized boolean running() {
        return current != null;
    }

    /** Stops the checks for good (the beans are unregistered). */
    synchronized void close() {
        registrations.clear();
        stopIfNobodyListens();
    }

    private void start() {
        Check check = new Check(new AlertStates(timeScale));
        current = check;
        check.next = timer().schedule(check, 0);
    }

    private void stopIfNobodyListens() {
        if (registrations.isEmpty() && current != null) {
            current.next.cancel();
            current = null;
        }
    }

    private synchronized void scheduleNext(Check check) {
        if (current == check) {
            check.next = timer().schedule(check, check.states.checkNanos());
        }
    }

    private synchronized boolean isCurrent(Check check) {
        return current == check;
    }

    private Timer timer() {
        return beans.governor().timer();
    }

    /** One run of checks, from a first listener to the last one's going; its states are its own. */
    private final class Check implements Runnable {
        final AlertStates states;
        /** Guarded by GovernorAlerts.this. */
        Timer.Cancellable next;

        Check(AlertStates states) {
            this.states = states;
        }

        @Override
        public void run() {
            if (!isCurrent(this)) {
                return;
            }
            try {
                Clock clock = beans.governor().clock();
                long nowNanos = clock.nanoTime();
                List<AlertStates.Change> changes = states.check(nowNanos, read());
                for (AlertStates.Change c : changes) {
                    sendNotification(notification(c, states, nowNanos, clock.epochMillis()));
                }
            } catch (Throwable t) {
                fault(t);
            } finally {
                scheduleNext(this);
            }
        }
    }

    private void fault(Throwable t) {
        long now = beans.governor().clock().nanoTime();
        if (lastFaultLoggedNanos == Long.MIN_VALUE || now - lastFaultLoggedNanos >= FAULT_LOG_PERIOD_NANOS) {
            lastFaultLoggedNanos = now;
            LOG.get().warn("JMX alert check failed, trying again at the next check: {}", t.toString());
        }
    }

    // ------------------------------------------------------------------ readings

    /** What the beans show now, for every condition's subjects. */
    private AlertStates.Readings read() {
        AlertStates.Readings r = new AlertStates.Readings();
        for (Map.Entry<String, ProviderCounters> p :
                beans.governance().allCounters().entrySet()) {
            r.provider429s(p.getKey(), p.getValue().status429());
        }
        for (TrafficClassBean c : classes) {
            r.queue(c.getName(), c.getQueueDepth(), c.getMaxQueueDepth());
        }
        for (LimitBean l : configuredTokenLimits) {
            r.tokenLimit(l.getId(), l.getProvider(), l.getUtilisation());
        }
        List<LimitBean> learned = beans.learned();
        for (LimitBean l : learned.subList(0, Math.min(learned.size(), SluiceMBeans.MAX_LEARNED_LIMITS))) {
            if (countsTokens(l.getDimension())) {
                r.tokenLimit(l.getId(), l.getProvider(), l.getUtilisation());
            }
        }
        for (Map.Entry<String, Long> u :
                beans.governorBean().getUngovernedConnections().entrySet()) {
            String key = u.getKey();
            int via = key.indexOf(" via ");
            r.ungoverned(via < 0 ? key : key.substring(0, via), via < 0 ? "" : key.substring(via + 5), u.getValue());
        }
        r.faults(beans.governorBean().getFaults());
        return r;
    }

    // ------------------------------------------------------------------ notifications

    private Notification notification(AlertStates.Change c, AlertStates states, long nowNanos, long nowMillis) {
        AlertCondition k = c.condition;
        Notification n = new Notification(
                c.fired ? k.notificationType : AlertCondition.CLEARED,
                name,
                sequence.incrementAndGet(),
                nowMillis,
                message(c, states));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("alert", k.ruleName);
        data.put("severity", k.severity);
        data.putAll(c.labels);
        data.put("value", c.value);
        data.put("threshold", k.threshold);
        if (states.windowNanos(k) > 0) {
            data.put("window", duration(states.windowNanos(k)));
        }
        data.put("for", duration(states.holdNanos(k)));
        if (k == AlertCondition.QUEUE_NEARLY_FULL) {
            data.put("maxQueueDepth", (long) c.detail);
        } else if (k == AlertCondition.QUEUE_GROWING) {
            data.put("growthPerSecond", c.detail);
        }
        if (c.fired) {
            data.put(
                    "since",
                    Instant.ofEpochMilli(nowMillis - (nowNanos - c.activeSinceNanos) / 1_000_000)
                            .toString());
        } else {
            data.put("cleared", k.notificationType);
            data.put(
                    "firedAt",
                    Instant.ofEpochMilli(nowMillis - (nowNanos - c.firedAtNanos) / 1_000_000)
                            .toString());
        }
        n.setUserData(data);
        return n;
    }

    /** One line an operator reads in a console: what, where, how much, against which threshold. */
    static String message(AlertStates.Change c, AlertStates states) {
        AlertCondition k = c.condition;
        String window = duration(states.windowNanos(k));
        String hold = duration(states.holdNanos(k));
        String head = c.fired ? k.ruleName + ": " : k.ruleName + " cleared: ";
        switch (k) {
            case PROVIDER_429_SPIKE:
                return head
                        + format(
                                "provider %s answers 429 at %.2f/s over the last %s",
                                c.labels.get("provider"), c.value, window)
                        + (c.fired ? format(", above %s/s for %s", number(k.threshold), hold) : "");
            case QUEUE_NEARLY_FULL:
                return head
                        + format(
                                "traffic class %s has %d calls waiting, %s its maximum depth %d",
                                c.labels.get("class"),
                                (long) c.value,
                                c.fired ? "above " + percent(k.threshold) + " of" : "of",
                                (long) c.detail)
                        + (c.fired ? " for " + hold : "");
            case QUEUE_GROWING:
                return head
                        + format(
                                "traffic class %s has %d calls waiting%s (%+.2f calls/s over the last %s)",
                                c.labels.get("class"),
                                (long) c.value,
                                c.fired ? " and its queue kept growing for " + hold : "",
                                c.detail,
                                window);
            case TOKEN_PRESSURE:
                return head
                        + format(
                                "token limit %s is %s used%s",
                                c.labels.get("limit"),
                                percent(c.value),
                                c.fired ? ", above " + percent(k.threshold) + " for " + hold : "");
            case UNGOVERNED_CALLS:
                return c.fired
                        ? head
                                + format(
                                        "calls to %s through %s are not governed (%d connections in the last %s)",
                                        c.labels.get("host"), c.labels.get("client"), (long) c.value, window)
                        : head
                                + format(
                                        "no connection to %s through %s in the last %s",
                                        c.labels.get("host"), c.labels.get("client"), window);
            case FAULTS:
                return c.fired
                        ? head
                                + format(
                                        "Sluice met %d faults of its own in the last %s; each let its call through"
                                                + " (see the agent's log)",
                                        (long) c.value, window)
                        : head + "no fault in the last " + window;
            default:
                return head + c.key;
        }
    }

    private static String format(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }

    private static String percent(double share) {
        return number(share * 100) + " %";
    }

    /** {@code 0.2}, {@code 10}, {@code 93.5}: no trailing zeros. */
    private static String number(double v) {
        double rounded = Math.round(v * 10) / 10.0;
        return rounded == Math.rint(rounded) ? Long.toString((long) rounded) : Double.toString(rounded);
    }

    /** As a rules file writes it: {@code 2m}, {@code 15s}, {@code 1.5s}. */
    static String duration(long nanos) {
        Duration d = Duration.ofNanos(nanos);
        if (nanos > 0 && nanos % 60_000_000_000L == 0) {
            return d.toMinutes() + "m";
        }
        if (nanos % 1_000_000_000L == 0) {
            return d.getSeconds() + "s";
        }
        return number(nanos / 1e9) + "s";
    }
}
