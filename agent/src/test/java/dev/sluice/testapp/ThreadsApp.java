package dev.sluice.testapp;

import java.util.TreeSet;

/**
 * Prints the names of the live threads once start-up has settled: the agent's one short-lived
 * thread, {@code sluice-warmup}, must have ended by itself.
 */
public final class ThreadsApp {

    private ThreadsApp() {}

    public static void main(String[] args) throws Exception {
        Thread.sleep(300);
        long deadline = System.nanoTime() + 20_000_000_000L;
        boolean warmUpAlive = true;
        while (warmUpAlive && System.nanoTime() < deadline) {
            warmUpAlive = false;
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                warmUpAlive |= thread.getName().equals("sluice-warmup");
            }
            Thread.sleep(warmUpAlive ? 20 : 0);
        }
        Report.put("warmUpEnded", !warmUpAlive);
        TreeSet<String> names = new TreeSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            names.add(thread.getName());
        }
        Report.put("threads", String.join("|", names));
    }
}
