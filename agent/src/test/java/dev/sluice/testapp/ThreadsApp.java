package dev.sluice.testapp;

import java.util.TreeSet;

/**
 * Prints the names of the live threads once start-up has settled: the agent's short-lived
 * threads, {@code sluice-start}, {@code sluice-warmup} and {@code sluice-jmx} (registers the MXBeans a couple of seconds
 * after start), must have ended by themselves. With the argument {@code http-client} it first
 * creates a JDK {@code HttpClient}, whose class the agent hooks, so a hook is woven at once.
 */
public final class ThreadsApp {

    private ThreadsApp() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("http-client")) {
            java.net.http.HttpClient.newHttpClient();
        }
        Thread.sleep(300);
        long deadline = System.nanoTime() + 20_000_000_000L;
        boolean warmUpAlive = true;
        while (warmUpAlive && System.nanoTime() < deadline) {
            warmUpAlive = false;
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                warmUpAlive |= thread.getName().equals("sluice-warmup")
                        || thread.getName().equals("sluice-start")
                        || thread.getName().equals("sluice-jmx");
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
