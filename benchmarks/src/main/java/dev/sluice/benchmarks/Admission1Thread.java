package dev.sluice.benchmarks;

import org.openjdk.jmh.annotations.Threads;

/** {@link AdmissionBenchmark} with one caller thread: the cost of an admission without contention. */
@Threads(1)
public class Admission1Thread extends AdmissionBenchmark {}
