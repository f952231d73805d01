#!/usr/bin/env python3
"""Compares kvsim's speculative-decoding speedup with published vLLM measurements (rows.csv).

  /usr/bin/python3 docs/fidelity/speculative/validate_speculative.py build-dev/cli/kvsim [num_requests]

Validation only: the measured acceptance length (a property of the drafter and the dataset,
like the workload) is an input, turned into kvsim's one i.i.d. acceptance rate p solving
1 + p + ... + p^k = AL; everything else is kvsim's defaults (the operators cost model, the
h100-sxm preset). Each row runs the EAGLE-3 preset twice, with and without its speculative
section, as a closed loop of `batch` requests (the benchmark's --max-concurrency / max_num_seqs).
Speedup: baseline / speculative TPOT for tpot_ms rows, speculative / baseline output tokens/s for
output_tok_s rows (an offline run's throughput: prefill included). With a tolerance as the third
argument it exits 1 when a row's speedup is off by more than it, or when kvsim's tokens per
verifying step miss the measured acceptance length by more than 3% (the conversion to p).
"""
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def acceptance_rate(length, k):
    """The p in [0, 1] with 1 + p + ... + p^k = length (bisection: the sum grows with p)."""
    low, high = 0.0, 1.0
    for _ in range(60):
        p = (low + high) / 2
        if sum(p**i for i in range(k + 1)) < length:
            low = p
        else:
            high = p
    return (low + high) / 2


def command(kvsim, row, num_requests, speculative):
    sets = {
        "model": row["model"],
        "device": row["gpu"],
        "scheduler.max_num_seqs": row["batch"],
        "workload.max_concurrency": row["batch"],
        "workload.synthetic.arrival": "burst",
        "workload.synthetic.num_requests": num_requests,
        "workload.synthetic.prompt_tokens": row["prompt_tokens"],
        "workload.synthetic.output_tokens": row["output_tokens"],
    }
    if speculative:
        k = int(row["k"])
        sets["speculative.method"] = row["method"]
        sets["speculative.num_speculative_tokens"] = k
        sets["speculative.acceptance"] = round(acceptance_rate(float(row["acceptance_length"]), k), 4)
    else:
        sets["speculative"] = "null"
    args = [kvsim, "simulate", "eagle3-llama3.1-8b", "--json"]
    for key, value in sets.items():
        args += ["--set", f"{key}={value}"]
    return args


def figure(summary, metric):
    if metric == "tpot_ms":
        return summary["tpot_s"]["mean"] * 1e3
    return summary["output_tokens_per_s"]


def speedup(metric, baseline, speculative):
    return baseline / speculative if metric == "tpot_ms" else speculative / baseline


def main():
    kvsim = sys.argv[1]
    num_requests = int(sys.argv[2]) if len(sys.argv) > 2 else 80
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else None
    with open(os.path.join(HERE, "rows.csv")) as f:
        rows = list(csv.DictReader(f))
    errors = []
    acceptance_misses = []
    print(f"{'row':14} {'k':>2} {'AL':>5} {'p':>6} {'measured':>8} {'kvsim':>6} {'error':>7} {'kvsim AL':>8}")
    for row in rows:
        runs = {}
        for speculative in (False, True):
            out = subprocess.run(command(kvsim, row, num_requests, speculative), check=True,
                                 capture_output=True, text=True).stdout
            runs[speculative] = json.loads(out)
        metric = row["metric"]
        measured = speedup(metric, float(row["baseline"]), float(row["speculative"]))
        predicted = speedup(metric, figure(runs[False], metric), figure(runs[True], metric))
        error = predicted / measured - 1
        errors.append(error)
        k = int(row["k"])
        p = acceptance_rate(float(row["acceptance_length"]), k)
        al = runs[True]["speculative"]["tokens_per_verify_step"]
        if abs(al / float(row["acceptance_length"]) - 1) > 0.03:
            acceptance_misses.append(row["row"])
        print(f"{row['row']:14} {k:2d} {float(row['acceptance_length']):5.2f} {p:6.3f} "
              f"{measured:8.3f} {predicted:6.3f} {error:+7.1%} {al:8.2f}")
    median = statistics.median(abs(e) for e in errors)
    within = sum(abs(e) <= 0.15 for e in errors)
    print(f"median |error| {median:.1%}; {within} of {len(errors)} rows within 15%")
    if tolerance is not None:
        off = [row["row"] for row, e in zip(rows, errors) if abs(e) > tolerance]
        if off or acceptance_misses:
            print(f"speedup off by more than {tolerance:.0%}: {off}; "
                  f"acceptance length missed by more than 3%: {acceptance_misses}")
            sys.exit(1)


if __name__ == "__main__":
    main()
