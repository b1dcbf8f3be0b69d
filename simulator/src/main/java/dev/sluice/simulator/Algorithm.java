package dev.sluice.simulator;

/** How a limit refills. */
public enum Algorithm {
    /**
     * Continuous refill at capacity/window, bounded by a burst (the bucket size). With the default
     * burst equal to the capacity, 60 per minute admits 60 at once and then one per second; a burst
     * of 1 gives the strict sub-minute pacing some providers apply.
     */
    TOKEN_BUCKET,
    /** A counter per window aligned to window boundaries (epoch-aligned), reset at the boundary. */
    FIXED_WINDOW
}
