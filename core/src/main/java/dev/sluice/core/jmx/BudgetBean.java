package dev.sluice.core.jmx;

import dev.sluice.core.BudgetAlert;
import dev.sluice.core.BudgetStatus;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.quota.Limit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.management.MBeanNotificationInfo;
import javax.management.Notification;
import javax.management.NotificationBroadcasterSupport;
import javax.management.ObjectName;

/**
 * {@code dev.sluice:type=Budget,name=<limit id>}: one per configured spend limit. Reads where its
 * buckets stand from the governor, and turns the governor's budget alerts for this limit into
 * JMX notifications.
 */
final class BudgetBean implements BudgetMXBean {

    private static final int MAX_ROWS = 50;

    private final SluiceMBeans beans;
    private final Limit limit;
    private final NotificationBroadcasterSupport emitter;
    private final AtomicLong sequence = new AtomicLong();
    private final Consumer<BudgetAlert> listener = this::onAlert;
    private volatile ObjectName name;

    BudgetBean(SluiceMBeans beans, Limit limit) {
        this.beans = beans;
        this.limit = limit;
        this.emitter = new NotificationBroadcasterSupport(new MBeanNotificationInfo(
                new String[] {
                    BudgetAlert.Level.WARNING.notificationType(), BudgetAlert.Level.EXHAUSTED.notificationType()
                },
                Notification.class.getName(),
                "A budget passed its warning share, or ran out (once per period and bucket)"));
    }

    NotificationBroadcasterSupport emitter() {
        return emitter;
    }

    /** Starts sending this budget's alerts as notifications from the bean named {@code n}. */
    void attach(ObjectName n) {
        this.name = n;
        beans.controls().addBudgetListener(listener);
    }

    void detach() {
        beans.controls().removeBudgetListener(listener);
    }

    private void onAlert(BudgetAlert a) {
        if (!a.status().limitId().equals(limit.id())) {
            return;
        }
        Notification n = new Notification(
                a.level().notificationType(),
                name,
                sequence.incrementAndGet(),
                System.currentTimeMillis(),
                a.message());
        Map<String, Object> data = new LinkedHashMap<>();
        BudgetStatus s = a.status();
        data.put("limit", s.limitId());
        data.put("scope", s.scope());
        data.put("currency", s.currency());
        data.put("threshold", a.threshold());
        data.put("amount", s.amountMicros() / 1e6);
        data.put("spent", s.spentMicros() / 1e6);
        data.put("reserved", s.reservedMicros() / 1e6);
        data.put("left", s.leftMicros() / 1e6);
        data.put("resetsAt", iso(s.resetsAtMillis()));
        n.setUserData(data);
        emitter.sendNotification(n);
    }

    private List<BudgetStatus> statuses() {
        List<BudgetStatus> all = new ArrayList<>(beans.controls().budgetStatuses(limit.id()));
        all.sort(Comparator.comparingLong(BudgetStatus::leftMicros));
        return all;
    }

    /** The bucket with the least left; null before any call made one. */
    private BudgetStatus tightest() {
        List<BudgetStatus> all = statuses();
        return all.isEmpty() ? null : all.get(0);
    }

    private static String iso(long millis) {
        return millis > 0 ? Instant.ofEpochMilli(millis).toString() : "";
    }

    @Override
    public String getId() {
        return limit.id();
    }

    @Override
    public String getCurrency() {
        return beans.controls().currency();
    }

    @Override
    public String getPeriod() {
        if (limit.spec().period() != null) {
            return limit.spec().period().configName();
        }
        return LimitBean.window(limit.spec());
    }

    @Override
    public String getLevel() {
        return limit.spec().level().configName();
    }

    @Override
    public double getAmount() {
        return limit.capacity() / 1e6;
    }

    @Override
    public void setAmount(double amount) {
        if (!(amount > 0) || Double.isInfinite(amount)) {
            throw new IllegalArgumentException("amount must be > 0, was " + amount);
        }
        beans.controls().setCapacity(limit.id(), Math.max(1, Math.round(amount * 1e6)));
        beans.changed();
    }

    @Override
    public double getSpent() {
        BudgetStatus s = tightest();
        return s == null ? 0 : s.spentMicros() / 1e6;
    }

    @Override
    public double getReserved() {
        BudgetStatus s = tightest();
        return s == null ? 0 : s.reservedMicros() / 1e6;
    }

    @Override
    public double getLeft() {
        BudgetStatus s = tightest();
        return s == null ? getAmount() : s.leftMicros() / 1e6;
    }

    @Override
    public String getPeriodStart() {
        BudgetStatus s = tightest();
        return s == null || s.periodStartMillis() < 0 ? "" : iso(s.periodStartMillis());
    }

    @Override
    public String getResetsAt() {
        BudgetStatus s = tightest();
        return s == null || s.periodStartMillis() < 0 ? "" : iso(s.resetsAtMillis());
    }

    @Override
    public double getWarnAt() {
        return limit.spec().warnAt();
    }

    @Override
    public boolean isEnforced() {
        return limit.enforced();
    }

    @Override
    public int getBucketCount() {
        return statuses().size();
    }

    @Override
    public List<BudgetRow> getBuckets() {
        List<BudgetRow> rows = new ArrayList<>();
        for (BudgetStatus s : statuses()) {
            if (rows.size() == MAX_ROWS) {
                break;
            }
            rows.add(new BudgetRow(
                    s.scope(),
                    s.spentMicros() / 1e6,
                    s.reservedMicros() / 1e6,
                    s.leftMicros() / 1e6,
                    s.periodStartMillis() < 0 ? "" : iso(s.resetsAtMillis())));
        }
        return rows;
    }

    @Override
    public long getExhaustedRejections() {
        return limit.rejections(GatewayDecision.BUDGET_EXHAUSTED);
    }

    @Override
    public long getSettledFromUsage() {
        return beans.controls().budgetSettlements(limit.id())[0];
    }

    @Override
    public long getSettledFromCount() {
        return beans.controls().budgetSettlements(limit.id())[1];
    }

    @Override
    public long getSettledAsReserved() {
        return beans.controls().budgetSettlements(limit.id())[2];
    }
}
