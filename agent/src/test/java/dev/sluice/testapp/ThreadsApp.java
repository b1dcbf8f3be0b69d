package dev.sluice.testapp;

import java.util.TreeSet;

/** Prints the names of the live threads once start-up has settled. */
public final class ThreadsApp {

    private ThreadsApp() {}

    public static void main(String[] args) throws Exception {
        Thread.sleep(300);
        TreeSet<String> names = new TreeSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            names.add(thread.getName());
        }
        Report.put("threads", String.join("|", names));
    }
}
