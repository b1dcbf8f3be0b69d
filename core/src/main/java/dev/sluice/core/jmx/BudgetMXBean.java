package dev.sluice.core.jmx;

import java.util.List;

/**
 * A budget: a spend limit, in the config's currency. It sends {@code sluice.budget.warning} when
 * a bucket's spend passes the warning share and {@code sluice.budget.exhausted} when it runs out,
 * once per period and bucket, as {@code javax.management.Notification}s.
 */
@Description("A budget (spend limit): spent, reserved and left in the current period; sends notifications"
        + " sluice.budget.warning and sluice.budget.exhausted")
public interface BudgetMXBean {

    @Description("The limit's id, as in the config and in rejections")
    String getId();

    @Description("The currency unit of every amount here (config currency)")
    String getCurrency();

    @Description("hour, day, week or month for a calendar period; the window (1h, 1d) for a rolling one")
    String getPeriod();

    @Description("The scope level that gets one budget per value: organization, tenant, team, api_key,"
            + " model_profile, provider_deployment")
    String getLevel();

    @Description("The amount of each bucket per period, in the currency. Writable (> 0); applies at once")
    double getAmount();

    void setAmount(double amount);

    @Description("Spent by settled calls in the current period, in the bucket with the least left")
    double getSpent();

    @Description("Reserved by calls in flight (their worst case), in the bucket with the least left")
    double getReserved();

    @Description("What new calls may still reserve in the bucket with the least left")
    double getLeft();

    @Description("When the current period started (ISO-8601), in the bucket with the least left; empty for a"
            + " rolling window")
    String getPeriodStart();

    @Description("When the period starts again (ISO-8601); empty for a rolling window")
    String getResetsAt();

    @Description("The share of the amount spent at which the budget warns (config warnAt)")
    double getWarnAt();

    @Description("Whether it refuses calls; an unenforced budget is counted, warns, and never refuses")
    boolean isEnforced();

    @Description("Buckets of this budget alive now (one per scope value seen recently)")
    int getBucketCount();

    @Description("The buckets with the least left (at most 50): scope, spent, reserved, left, resets at")
    List<BudgetRow> getBuckets();

    @Description("Calls refused with budget_exhausted")
    long getExhaustedRejections();

    @Description("Calls settled at the cost of the usage the provider reported")
    long getSettledFromUsage();

    @Description("Calls settled at the cost of what Sluice counted (a stream cut short before its usage)")
    long getSettledFromCount();

    @Description("Calls settled at their reservation because usage never arrived (broken or abandoned answers)")
    long getSettledAsReserved();
}
