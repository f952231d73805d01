#!/usr/bin/python3
"""The Python module's overhead: kvsim.simulate(SCENARIO) in a warm interpreter (the
DataFrames of requests.csv and timeseries.csv built, as a user gets them) against the CLI's
wall time on the same scenario, both from one build. Paired: every round runs the CLI, then
Python, so a noisy machine slows both; a round's ratio is Python / CLI, and the result is the
median of the ratios (and of each side's times).

Two CLI baselines: `kvsim simulate SCENARIO --out DIR` (the same files written, as Python
writes and reads them back) and plain `kvsim simulate SCENARIO` (the summary only).
  PYTHONPATH=<build>/python /usr/bin/python3 bench/python_overhead.py <build>/cli/kvsim \
      [rounds=11] [scenario=default]
"""
import statistics
import subprocess
import sys
import tempfile
import time

import kvsim
import pandas  # noqa: F401  imported before timing, as in a notebook


def cli_wall(binary, scenario, out):
    args = [binary, "simulate", scenario] + (["--out", out] if out else [])
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def python_wall(scenario):
    start = time.perf_counter()
    result = kvsim.simulate(scenario)
    assert len(result.requests) > 0 and result.timeseries is not None
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    scenario = sys.argv[3] if len(sys.argv) > 3 else "default"
    with tempfile.TemporaryDirectory() as out:
        cli_wall(binary, scenario, out)  # warm-up: page cache, presets
        python_wall(scenario)
        times = {"cli --out": [], "cli": [], "python": []}
        for _ in range(rounds):
            times["cli --out"].append(cli_wall(binary, scenario, out))
            times["cli"].append(cli_wall(binary, scenario, None))
            times["python"].append(python_wall(scenario))
    for name, values in times.items():
        print(f"{name:10s} median {statistics.median(values) * 1e3:8.1f} ms "
              f"(min {min(values) * 1e3:.1f}, max {max(values) * 1e3:.1f}, {rounds} rounds)")
    for base in ("cli --out", "cli"):
        ratios = [p / c for p, c in zip(times["python"], times[base])]
        print(f"python / {base:9s} paired median ratio {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
