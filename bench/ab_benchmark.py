#!/usr/bin/env python3
"""Paired A/B comparison of two builds of one Google Benchmark binary, robust to a noisy machine.

Rounds alternate the order (A B, B A, ...); each benchmark's time is the median CPU time over
rounds; the ratio is B / A per benchmark, and the geometric mean over all of them.
  bench/ab_benchmark.py A/bench_x B/bench_x [rounds] [filter]      (defaults: 5, every benchmark)
"""
import json
import math
import statistics
import subprocess
import sys


def run(binary, benchmark_filter):
    args = [binary, "--benchmark_min_time=0.1", "--benchmark_format=json"]
    if benchmark_filter:
        args.append("--benchmark_filter=" + benchmark_filter)
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return {b["name"]: b["cpu_time"] for b in json.loads(out)["benchmarks"]
            if b.get("run_type", "iteration") == "iteration"}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binaries = sys.argv[1:3]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    benchmark_filter = sys.argv[4] if len(sys.argv) > 4 else ""
    times = ({}, {})
    for r in range(rounds):
        for k in ((0, 1) if r % 2 == 0 else (1, 0)):
            for name, t in run(binaries[k], benchmark_filter).items():
                times[k].setdefault(name, []).append(t)
    logs = []
    for name in times[0]:
        if name not in times[1]:
            continue
        a, b = statistics.median(times[0][name]), statistics.median(times[1][name])
        logs.append(math.log(b / a))
        print(f"{name:48s} A {a:12.1f}  B {b:12.1f}  B/A {b / a:.3f}")
    print(f"geometric mean B/A over {len(logs)} benchmarks: {math.exp(sum(logs) / len(logs)):.3f}")


if __name__ == "__main__":
    main()
