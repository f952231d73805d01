#!/usr/bin/env python3
"""Paired A/B speed of two kvsim binaries on the same runs, robust to a noisy machine.

Every round runs binary A and then binary B on each run of a TSV (name<TAB>kvsim simulate
arguments; default bench/ab_runs.tsv), files written as a user runs them, and a run's ratio
is the median over rounds of B's wall time / A's just before it. Use it to show that a change
keeps the simulator's speed (a refactor: within 5%) — A the binary before, B after.
  bench/ab_speed.py A/kvsim B/kvsim [rounds] [runs.tsv]      (defaults: 5, bench/ab_runs.tsv)
"""
import os
import statistics
import sys
import tempfile

from bench_runs import read_runs, wall


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    a, b = (os.path.abspath(p) for p in sys.argv[1:3])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    runs = read_runs(sys.argv[4] if len(sys.argv) > 4 else "bench/ab_runs.tsv")
    times = {name: ([], []) for name, _ in runs}
    with tempfile.TemporaryDirectory() as out:
        for _, args in runs:  # warm-up: traces in the page cache
            wall(a, args, out)
        for _ in range(rounds):
            for name, args in runs:
                times[name][0].append(wall(a, args, out))
                times[name][1].append(wall(b, args, out))
    print(f"| run | A median (s) | B median (s) | median B/A ({rounds} paired rounds) | min | max |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, args in runs:
        ta, tb = times[name]
        r = [y / x for x, y in zip(ta, tb)]
        print(f"| {name} (`{args}`) | {statistics.median(ta):.3f} | {statistics.median(tb):.3f} | "
              f"{statistics.median(r):.3f} | {min(r):.3f} | {max(r):.3f} |")


if __name__ == "__main__":
    main()
