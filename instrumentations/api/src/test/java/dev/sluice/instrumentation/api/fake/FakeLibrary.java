package dev.sluice.instrumentation.api.fake;

/** Stands in for a library class with a hooked method. */
public class FakeLibrary {
    public String call() {
        return "original";
    }
}
