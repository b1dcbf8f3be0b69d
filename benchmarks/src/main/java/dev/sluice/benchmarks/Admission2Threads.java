package dev.sluice.benchmarks;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link AdmissionBenchmark} with two caller threads on the same governor, bucket and rate limiter:
 * the cost of an admission when every call contends for the same state (on a 2-core machine, both
 * cores).
 */
@Threads(2)
public class Admission2Threads extends AdmissionBenchmark {}
