#!/usr/bin/env python3
"""Prints the admission table of docs/benchmarks.md from a JMH JSON result (-rf json -rff FILE).

Usage: python3 benchmarks/scripts/jmh-table.py admission.json
"""
import json
import sys

ROWS = [
    ("bucket4j_1bucket_tryConsume", "Bucket4j, local bucket: `tryConsume(1)`"),
    ("bucket4j_1bucket_tryConsume_batched", "Bucket4j, the same in batches of 1,000"),
    ("resilience4j_1bucket_acquirePermission", "Resilience4j `RateLimiter`: `acquirePermission()`"),
    ("resilience4j_1bucket_acquirePermission_batched", "Resilience4j, the same in batches of 1,000"),
    ("sluice_1bucket_admitOnly", "Sluice, 1 bucket: `tryAdmit` alone, in batches of 1,000"),
    ("sluice_1bucket_admitSettle", "Sluice, 1 bucket: `tryAdmit` + `settleAndRelease`"),
    ("sluice_1bucket_admitCancel", "Sluice, 1 bucket: `tryAdmit` + `cancel`"),
    ("sluice_1bucket_freshContext_admitSettle", "Sluice, 1 bucket: new `CallContext` + admit + settle"),
    ("sluice_15buckets_admitOnly", "Sluice, 15 buckets: `tryAdmit` alone, in batches of 1,000"),
    ("sluice_15buckets_admitSettle", "Sluice, 15 buckets: `tryAdmit` + `settleAndRelease`"),
    ("sluice_15buckets_admitCancel", "Sluice, 15 buckets: `tryAdmit` + `cancel`"),
    ("sluice_15buckets_freshContext_admitSettle", "Sluice, 15 buckets: new `CallContext` + admit + settle"),
]


def main(path):
    results = {}
    for r in json.load(open(path)):
        cls, method = r["benchmark"].split(".")[-2:]
        alloc = r["secondaryMetrics"].get("gc.alloc.rate.norm", {}).get("score")
        results[(cls, method)] = (r["primaryMetric"]["score"], r["primaryMetric"]["scoreError"], alloc)

    def cell(key):
        if key not in results:
            return "–", "–"
        score, error, alloc = results[key]
        return f"{score:,.0f} ± {error:,.0f}", "–" if alloc is None else f"{alloc:,.0f}"

    print("| operation | 1 thread ns/op | B/op | 2 threads ns/op | B/op |")
    print("|---|--:|--:|--:|--:|")
    for method, label in ROWS:
        one = cell(("Admission1Thread", method))
        two = cell(("Admission2Threads", method))
        print(f"| {label} | {one[0]} | {one[1]} | {two[0]} | {two[1]} |")
    for method in ("nanoTime", "currentTimeMillis"):
        c = cell(("ClockReadBenchmark", method))
        print(f"| one `System.{method}()` (reference) | {c[0]} | {c[1]} | | |")


if __name__ == "__main__":
    main(sys.argv[1])
