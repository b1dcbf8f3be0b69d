package dev.sluice.simulator.protocol;

/** How a successful response's body ends. */
public enum Ending {
    /** Normally, with usage and the provider's end marker. */
    COMPLETE,
    /** Half way, without usage or end marker; the connection is closed mid-body. */
    TRUNCATED,
    /** Half way, with the provider's in-band error event (Anthropic overloaded...). */
    MID_STREAM_ERROR
}
