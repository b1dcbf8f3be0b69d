package dev.sluice.core.fallback;

import java.util.Locale;

/** Why a call left a route for the next one. */
public enum FallbackReason {
    /** The route could not admit the call at once: its limits, its queue or its pause. */
    NO_ROOM,
    /** The provider paused the route (a 429 naming a wait) for longer than the class's {@code afterPause}. */
    PAUSED,
    /** The provider answered overloaded (503, 529) or its connection failed before any answer. */
    OVERLOADED;

    /** As shown in JMX and the decision log: {@code no_room}, {@code paused}, {@code overloaded}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
