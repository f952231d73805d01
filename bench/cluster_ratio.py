#!/usr/bin/env python3
"""Paired speed ratios of cluster runs against the lone engine, robust to a noisy machine.

bench/cluster_speed.sh times each configuration in its own hyperfine block, so a burst of load
on this shared VM lands on one side of a ratio. Here every round runs the lone engine and then
each configuration right after another lone run, and a configuration's ratio is the median over
rounds of (its wall time / the lone run just before it); all runs write their files (--out),
as a user runs them, and simulate the same 12,031 Mooncake requests, so the ratio is per
simulated request. Target (issue 8): <= 2x.
  bench/cluster_ratio.py [build-dir] [rounds] [match]   (defaults: build, 5, every row)
`match` keeps only the rows whose name contains it (e.g. HBM+DRAM: the tiered rows).
"""
import os
import statistics
import sys
import tempfile

from bench_runs import read_runs, wall


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    kvsim = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "cli", "kvsim")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    match = sys.argv[3] if len(sys.argv) > 3 else ""
    (_, lone_args), *runs = read_runs("bench/cluster_runs.tsv")
    runs = [(name, args) for name, args in runs if match in name]
    ratios = {name: [] for name, _ in runs}
    lone_times = []
    with tempfile.TemporaryDirectory() as out:
        wall(kvsim, lone_args, out)  # warm-up: the trace file in the page cache
        for _ in range(rounds):
            for name, args in runs:
                lone = wall(kvsim, lone_args, out)
                lone_times.append(lone)
                ratios[name].append(wall(kvsim, args, out) / lone)
    print(f"| configuration | median paired ratio ({rounds} rounds) | min | max |")
    print("|---|---:|---:|---:|")
    for name, args in runs:
        r = ratios[name]
        print(f"| {name} (`{args}`) | {statistics.median(r):.2f}x | {min(r):.2f}x | {max(r):.2f}x |")
    print(f"lone engine: median {statistics.median(lone_times):.2f} s over {len(lone_times)} runs "
          f"(min {min(lone_times):.2f}, max {max(lone_times):.2f})")


if __name__ == "__main__":
    main()
