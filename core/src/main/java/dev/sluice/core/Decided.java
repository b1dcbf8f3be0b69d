package dev.sluice.core;

/**
 * What an admission request came to under the governor's lock: an {@link Admission} decided at
 * once, or a {@link Waiter} queued for its turn. A common type rather than a pair, so the fast path
 * returns its permit without allocating anything more.
 */
abstract class Decided {

    Decided() {}

    /** The queued call, or null when the request was decided at once. */
    abstract Waiter queued();

    /** The answer decided at once; only when {@link #queued()} is null. */
    abstract Admission admission();
}
