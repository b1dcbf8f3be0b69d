package dev.sluice.testapp;

import java.util.logging.LogManager;

/**
 * Chooses its {@code java.util.logging} log manager in {@code main}, as JBoss Modules does, once
 * the agent's governor is built (so the agent had every chance to initialise logging first), and
 * reports the log manager it got.
 */
public final class LogManagerApp {

    /** The log manager this application asks for. */
    public static final class OwnLogManager extends LogManager {}

    private LogManagerApp() {}

    public static void main(String[] args) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String state;
        while (!(state = String.valueOf(System.getProperty("dev.sluice.agent"))).startsWith("running")
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Report.put("agent", state.split("\n", 2)[0]);
        System.setProperty("java.util.logging.manager", OwnLogManager.class.getName());
        Report.put("logManager", LogManager.getLogManager().getClass().getName());
    }
}
