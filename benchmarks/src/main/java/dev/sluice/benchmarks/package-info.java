/**
 * JMH benchmarks that print Sluice's figures side by side with its peers'. Run them from the
 * shaded jar, e.g. {@code java -jar benchmarks/target/sluice-benchmarks.jar Admission}; the
 * command that produced the published table is in {@code docs/benchmarks.md}.
 */
package dev.sluice.benchmarks;
