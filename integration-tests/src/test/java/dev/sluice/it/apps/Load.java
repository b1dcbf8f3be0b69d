package dev.sluice.it.apps;

import dev.sluice.it.harness.AppReport;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The workload of the scenario applications: {@code threads} callers, each making {@code calls}
 * calls one after the other (a closed loop, like request threads of a service), each call timed
 * and its failure classified by {@link Outcomes}.
 */
public final class Load {

    /** One call of one caller. */
    @FunctionalInterface
    public interface Call {
        void run(int thread, int index) throws Exception;
    }

    private Load() {}

    /**
     * Runs the callers to their end and returns what they counted.
     *
     * @param bodyOf the error body an SDK exception carries, or null (messages are searched too)
     */
    public static AppReport closedLoop(int threads, int calls, Call call, Function<Throwable, String> bodyOf)
            throws InterruptedException {
        AppReport report = new AppReport();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    int index = i;
                    report.call(() -> {
                        try {
                            call.run(thread, index);
                        } catch (Throwable failure) {
                            report.count(Outcomes.classify(failure, bodyOf.apply(failure)), 1);
                            throw failure;
                        }
                    });
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(5, TimeUnit.MINUTES)) {
            report.count("unfinished", 1);
        }
        return report;
    }

    /** Prints the report and ends the JVM (SDK thread pools must not keep it alive). */
    public static void finish(AppReport report) {
        report.print();
        System.exit(0);
    }
}
