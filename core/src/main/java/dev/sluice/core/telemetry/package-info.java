/**
 * What Sluice counts and remembers for people: per-tenant counters, wait histograms, and the log of
 * recent decisions that JMX and the {@code status} command show. Nothing here takes part in a
 * decision. (Observing a provider's answer, a step of the call, is the provider adapters' work:
 * {@code provider}.)
 */
package dev.sluice.core.telemetry;
