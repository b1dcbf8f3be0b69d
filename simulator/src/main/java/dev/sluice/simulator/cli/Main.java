package dev.sluice.simulator.cli;

import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Simulator;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar sluice-simulator.jar --profile openai --rpm 60 --tpm 20000}: starts a
 * simulator, prints where it listens and what it enforces, and serves until the process is
 * stopped.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws InterruptedException {
        CommandLine cl;
        try {
            cl = CommandLine.parse(args);
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("Try --help.");
            System.exit(2);
            return;
        }
        if (cl.help) {
            System.out.println(CommandLine.USAGE);
            return;
        }
        Simulator sim = cl.builder.start();
        cl.faults.forEach(f -> f.accept(sim.faults()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            sim.close();
                            stopped.countDown();
                        },
                        "sluice-simulator-shutdown"));
        describe(sim, System.out);
        stopped.await();
    }

    static void describe(Simulator sim, PrintStream out) {
        out.println("Sluice simulator: " + sim.profile().id() + " on " + sim.baseUrl());
        out.println("  SDK base URL: " + sim.apiBaseUrl());
        out.println("  limits:");
        for (Limit limit : sim.limits()) {
            out.println("    " + limit.describe());
        }
        if (!sim.faults().armed().isEmpty()) {
            out.println("  faults: " + sim.faults().armed());
        }
        out.println("  admin: GET " + sim.baseUrl() + "/__sim/ledger, POST /__sim/faults, POST /__sim/reset");
        out.flush();
    }
}
