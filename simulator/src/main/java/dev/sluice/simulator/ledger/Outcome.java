package dev.sluice.simulator.ledger;

/** How the simulator answered one arrival. */
public enum Outcome {
    /** Passed every limit and was answered (possibly with a broken stream: see the fault). */
    ADMITTED,
    /** Refused by a limit: 429. */
    REJECTED,
    /** Refused as overloaded: 503 or 529. */
    OVERLOADED,
    /** Admitted, then the connection was reset before any response. */
    RESET,
    /** Any other error answer (400, 402, 409, 413, forced 429 quota errors, 500...). */
    ERROR
}
