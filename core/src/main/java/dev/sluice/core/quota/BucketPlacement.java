package dev.sluice.core.quota;

/**
 * Decides where a new bucket lives: in this JVM, or in a store a fleet of JVMs shares. A limit
 * asks it each time it creates a bucket (lazily, per scope value), under the governor's lock.
 */
@FunctionalInterface
public interface BucketPlacement {

    /** Every bucket stays in this JVM. */
    BucketPlacement LOCAL = (limit, scopeValue, local, nowNanos, nowMillis) -> local;

    /**
     * The bucket for {@code scopeValue} of {@code limit}: {@code local} itself, or a bucket whose
     * room lives in a shared store (which may keep {@code local}'s kind for a fallback).
     */
    Bucket place(Limit limit, String scopeValue, Bucket local, long nowNanos, long nowMillis);
}
