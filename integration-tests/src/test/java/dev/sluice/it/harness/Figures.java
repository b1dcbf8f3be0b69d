package dev.sluice.it.harness;

/**
 * Whether this run also produces the figures for the docs: the runs that assert nothing on Sluice
 * (the same workload without the agent, baselines printed beside the governed run). They are off
 * in the default {@code mvn verify} to keep it short, and on with {@code -Dsluice.figures=true}
 * (see docs/test-suite.md). Every assertion on Sluice's behaviour runs either way.
 */
public final class Figures {

    public static final String PROPERTY = "sluice.figures";

    private Figures() {}

    /** True when {@code -Dsluice.figures=true} was given to Maven (failsafe passes it on). */
    public static boolean enabled() {
        return Boolean.getBoolean(PROPERTY);
    }
}
