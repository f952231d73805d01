#!/usr/bin/env python3
"""Simulates the serving runs under load of docs/fidelity/serving (source A: vLLM 0.15.1 on H100,
inference-perf's constant-rate stages over shared-prefix chat) and compares kvsim's per-stage
TTFT, decode time per token and E2E means with the measured ones. Validation only: nothing is fitted here.

  /usr/bin/python3 docs/fidelity/serving/validate_serving.py build-dev/cli/kvsim [cost_model]

writes docs/fidelity/serving/results_a[_<cost_model>].{csv,md}. The workload each run is
replayed with is what its client sent (its profile's stages, the resolved shared_prefix groups,
and the prompt and output lengths it measured per stage), never its latencies.
"""
import json
import os
import sys

from serving_common import HERE, SATURATED_TTFT_S, error, load_runs, measured_values, median_abs, \
    simulate, write_csv

MODELS = {
    "meta-llama/Llama-2-7b-hf": "llama-2-7b",
    "meta-llama/Llama-2-70b-hf": "llama2-70b",
    "mistralai/Mixtral-8x7B-v0.1": "mixtral-8x7b",
    "codellama/CodeLlama-34b-Instruct-hf": "codellama-34b-instruct",
}
# Decode time per output token is derived, on both sides, as (E2E - TTFT) / (output - 1) from
# the stage's means: inference-perf's own TPOT and ITL count the streamed chunks and text it
# re-tokenizes (its ITL median is microseconds: several tokens per SSE chunk; its TPOT for
# Llama-2-7B at TP 1, 3.6 ms, is below the 4.0 ms the weights alone take to read on an H100).
METRICS = ["ttft", "decode", "e2e"]


def profile_of(run):
    text = run["client_command"]
    return json.loads(text[text.index("{"):])


def resolved_prefix(run):
    fields = dict(part.split("=") for part in run["prefix_sharing"].split(":")[1].split(";")[0].split())
    return {key: int(value) for key, value in fields.items()}


def output_tokens(run):
    return int(profile_of(run)["data"]["shared_prefix"]["output_len"])


def scenario_yaml(run, measured):
    profile = profile_of(run)
    prefix = resolved_prefix(run)
    stages = profile["load"]["stages"]
    # The prompt length the client measured (its tokenizer is the server's), and the output
    # length it asked for: with ignore_eos the server generates exactly that many tokens (the
    # client's own output count re-tokenizes the streamed text and comes out lower).
    prompt = round(measured[("summary", "prompt_len", "mean")])
    output = output_tokens(run)
    stage_list = ", ".join(f"{{rate: {s['rate']}, duration_s: {s['duration']}}}" for s in stages)
    return f"""name: {run['run_id']}
model: {MODELS[run['model']]}
device: h100-sxm
num_devices: {int(run['tp'].split()[0])}
weight_dtype: fp16
engine: {{name: vllm, version: {run['engine_version']}}}
cache: {{dtype: fp16, prefix_caching: true}}
scheduler: {{max_model_len: 4096, max_num_batched_tokens: 2048, max_num_seqs: 128}}
workload:
  synthetic:
    arrival: constant
    stages: [{stage_list}]
    prompt_tokens: {prompt}
    output_tokens: {output}
    prompt_set: {prefix['num_groups'] * prefix['num_prompts_per_group']}
    prompt_order: random
    shared_prefix: {{groups: {prefix['num_groups']}, tokens: {prefix['system_prompt_len']}, probability: 1}}
output: {{requests_csv: false, timeseries: false}}
"""


def main():
    kvsim = sys.argv[1]
    cost_model = sys.argv[2] if len(sys.argv) > 2 else ""
    runs = load_runs("A")
    rows = []
    for run in runs:
        measured = measured_values("measurements_a.csv", run["run_id"])
        summary = simulate(kvsim, scenario_yaml(run, measured), cost_model)
        for index, stage in enumerate(summary["stages"]):
            key = f"stage_{index}"
            row = {"run": run["run_id"], "model": MODELS[run["model"]], "tp": run["tp"].split()[0],
                   "stage": index, "rate": stage["rate_per_s"]}
            out = output_tokens(run)
            meas = {"ttft": measured[(key, "ttft", "mean")], "e2e": measured[(key, "e2e", "mean")]}
            sim = {"ttft": stage["ttft_s"]["mean"], "e2e": stage["e2e_s"]["mean"]}
            for side in (meas, sim):
                side["decode"] = (side["e2e"] - side["ttft"]) / (out - 1)
            for metric in METRICS:
                row[f"{metric}_measured_s"] = meas[metric]
                row[f"{metric}_kvsim_s"] = sim[metric]
                row[f"{metric}_error"] = error(sim[metric], meas[metric])
            row["measured_saturated"] = measured[(key, "ttft", "mean")] > SATURATED_TTFT_S
            row["kvsim_saturated"] = stage["ttft_s"]["mean"] > SATURATED_TTFT_S
            rows.append(row)
        print(run["run_id"], "done", file=sys.stderr)
    suffix = f"_{cost_model}" if cost_model else ""
    write_csv(os.path.join(HERE, f"results_a{suffix}.csv"), rows)
    write_md(os.path.join(HERE, f"results_a{suffix}.md"), rows, summary["cost_model"])


def write_md(path, rows, cost_model):
    healthy = [r for r in rows if not r["measured_saturated"]]
    mismatched = [r for r in rows if r["measured_saturated"] != r["kvsim_saturated"]]
    lines = [f"Source A (vLLM 0.15.1, H100), kvsim cost model {cost_model}: {len(rows)} stages, "
             f"{len(healthy)} of them healthy when measured (mean TTFT under {SATURATED_TTFT_S} s).",
             "",
             "| stages | median \\|error\\| TTFT | decode | E2E | saturation disagrees |",
             "|---|---:|---:|---:|---:|",
             f"| healthy ({len(healthy)}) | {median_abs(healthy, 'ttft'):.1%} | "
             f"{median_abs(healthy, 'decode'):.1%} | {median_abs(healthy, 'e2e'):.1%} | "
             f"{sum(1 for r in healthy if r['kvsim_saturated'])} |",
             f"| all ({len(rows)}) | {median_abs(rows, 'ttft'):.1%} | {median_abs(rows, 'decode'):.1%} | "
             f"{median_abs(rows, 'e2e'):.1%} | {len(mismatched)} |",
             "",
             "| run | model | TP | stage | rate/s | TTFT ms meas / kvsim | decode ms/token meas / kvsim | "
             "E2E s meas / kvsim | saturated meas / kvsim |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(
            f"| {r['run']} | {r['model']} | {r['tp']} | {r['stage']} | {r['rate']:g} | "
            f"{r['ttft_measured_s'] * 1e3:.1f} / {r['ttft_kvsim_s'] * 1e3:.1f} ({r['ttft_error']:+.0%}) | "
            f"{r['decode_measured_s'] * 1e3:.2f} / {r['decode_kvsim_s'] * 1e3:.2f} ({r['decode_error']:+.0%}) | "
            f"{r['e2e_measured_s']:.2f} / {r['e2e_kvsim_s']:.2f} ({r['e2e_error']:+.0%}) | "
            f"{'yes' if r['measured_saturated'] else 'no'} / {'yes' if r['kvsim_saturated'] else 'no'} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
