package dev.sluice.testapp;

import java.util.concurrent.ForkJoinPool;
import java.util.logging.LogManager;

/**
 * Sets up what a JVM lets be configured once, in {@code main}, as servers do (JBoss Modules picks
 * the {@code java.util.logging} log manager there; others size the common {@code ForkJoinPool}),
 * once the agent's governor is built, so the agent had every chance to get there first, and
 * reports what it got.
 */
public final class HostGlobalsApp {

    /** The log manager this application asks for. */
    public static final class OwnLogManager extends LogManager {}

    /** The common pool's parallelism this application asks for. */
    public static final int PARALLELISM = 7;

    private HostGlobalsApp() {}

    public static void main(String[] args) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String state;
        while (!(state = String.valueOf(System.getProperty("dev.sluice.agent"))).startsWith("running")
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Report.put("agent", state.split("\n", 2)[0]);
        System.setProperty("java.util.logging.manager", OwnLogManager.class.getName());
        System.setProperty("java.util.concurrent.ForkJoinPool.common.parallelism", String.valueOf(PARALLELISM));
        Report.put("logManager", LogManager.getLogManager().getClass().getName());
        Report.put("commonPoolParallelism", ForkJoinPool.commonPool().getParallelism());
    }
}
