package dev.sluice.testapp;

/** Prints one line: the JVM start-up baseline of the figures in docs/benchmarks.md. */
public final class HelloApp {

    private HelloApp() {}

    public static void main(String[] args) {
        System.out.println("hi");
    }
}
