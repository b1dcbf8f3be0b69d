package dev.sluice.core;

/**
 * Where the governor reads time. Monotonic nanoseconds drive refill and deadlines; wall-clock
 * milliseconds align fixed windows and daily resets. Injected so tests control time.
 */
public interface Clock {

    /** The system clock. */
    Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long epochMillis() {
            return System.currentTimeMillis();
        }
    };

    /** Monotonic time in nanoseconds, as {@link System#nanoTime()}. */
    long nanoTime();

    /** Wall-clock time in milliseconds since the epoch. */
    long epochMillis();
}
