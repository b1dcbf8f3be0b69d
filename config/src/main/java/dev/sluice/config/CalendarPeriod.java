package dev.sluice.config;

import java.time.Duration;

/**
 * A calendar period a budget counts over: it starts again at a local time in a zone, not a fixed
 * number of seconds after the last start. Weeks start on Monday, months on the 1st; a day around a
 * DST change is 23 or 25 hours long, a month 28 to 31 days.
 */
public enum CalendarPeriod implements ConfigNamed {
    HOUR("hour", Duration.ofHours(1)),
    DAY("day", Duration.ofDays(1)),
    WEEK("week", Duration.ofDays(7)),
    MONTH("month", Duration.ofDays(31));

    private final String configName;
    private final Duration longest;

    CalendarPeriod(String configName, Duration longest) {
        this.configName = configName;
        this.longest = longest;
    }

    @Override
    public String configName() {
        return configName;
    }

    /** The longest this period can be (a month: 31 days); what a rate derived from it is based on. */
    public Duration longest() {
        return longest;
    }

    @Override
    public String toString() {
        return configName;
    }
}
