#!/usr/bin/env python3
"""Fits the custom all-reduce kernels of vLLM and SGLang (execution_profile.h) to the microbenchmark
rows of docs/cost_model/microbench/measurements.csv: vLLM PRs #24111 and #24532, their
benchmark_device_communicators tables (bf16, hidden 8192, 0.5-4 MB, TP 2, 4 and 6; the TP 2 row
is under "### H100", the others' heading is not in the stored excerpt).

  one-shot  t = latency + (n - 1) x bytes / bandwidth        each rank reads every peer's tensor
  two-shot  t = latency + 2 (n - 1) / n x bytes / bandwidth  reduce-scatter, then all-gather

by least squares over every group size together; prints the constants of operator_fits.cc and
each fit's residuals.   /usr/bin/python3 docs/cost_model/fit_custom_allreduce.py
"""
import csv
import os
import re

import numpy as np

ROWS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "microbench", "measurements.csv")
SHARE = {"ca_1stage": lambda n: n - 1, "ca_2stage": lambda n: 2 * (n - 1) / n}


def main():
    with open(ROWS) as f:
        rows = [r for r in csv.DictReader(f) if r["category"] == "all_reduce"
                and r["source"].startswith("vLLM PR #24") and r["variant"] in SHARE]
    for variant, share in SHARE.items():
        x, y = [], []
        for r in rows:
            if r["variant"] != variant:
                continue
            n = int(r["world_size_or_tp"])
            size = float(re.search(r"([\d.]+) MB", r["size_or_shape"]).group(1)) * 1e6
            x.append([1.0, share(n) * size])
            y.append(float(r["value"]) * 1e-3)
        a, b = np.array(x), np.array(y)
        (latency, per_byte), *_ = np.linalg.lstsq(a, b, rcond=None)
        rel = np.abs(a @ [latency, per_byte] - b) / b
        print(f"{variant}: latency_s {latency:.4e}, bus_gbps {1 / per_byte / 1e9:.1f} "
              f"({len(b)} rows; |residual| median {np.median(rel):.1%}, max {rel.max():.1%})")


if __name__ == "__main__":
    main()
