package dev.sluice.core.schedule;

/** What happened when the dispatcher offered a waiting call its turn. */
public enum Verdict {
    /** Admitted: it leaves the queue. */
    ADMITTED,
    /** Does not fit now (or another call has first claim): it keeps its place. */
    NOT_NOW,
    /** Gone (deadline passed, cancelled): it leaves the queue without admission. */
    GONE
}
