package dev.sluice.agent.weaving;

import java.util.ArrayList;
import java.util.List;

/** What the test advice saw; reset before each test. */
public final class WeaveRecorder {

    public static int bodyRuns;
    public static Object replacement;
    public static boolean swallow;
    public static final List<Object> seen = new ArrayList<>();

    private WeaveRecorder() {}

    public static void reset() {
        bodyRuns = 0;
        replacement = null;
        swallow = false;
        seen.clear();
    }
}
