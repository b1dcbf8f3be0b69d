package dev.sluice.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SLF4J logger made on first use. A healthy start of the agent logs nothing, so it never pays
 * for initialising logging: SLF4J's provider look-up scans the host's class path and loads some
 * thirty classes, 12 to 20 ms of CPU on {@code sluice-start} in a one-call openai-java process
 * (docs/startup-figures.md), on the cores the application is starting on.
 */
public final class LazyLogger {

    private final Class<?> named;
    private volatile Logger logger;

    private LazyLogger(Class<?> named) {
        this.named = named;
    }

    /** A logger named after {@code named}, made when first used. */
    public static LazyLogger of(Class<?> named) {
        return new LazyLogger(named);
    }

    public Logger get() {
        Logger made = logger;
        if (made == null) {
            made = LoggerFactory.getLogger(named); // a race makes it twice: SLF4J hands back the same one
            logger = made;
        }
        return made;
    }
}
