#!/usr/bin/env python3
"""Simulates the serving runs of source B of docs/fidelity/serving (the GPUStack performance lab:
`vllm bench serve` and guidellm result blocks) that kvsim can express, and compares kvsim's TTFT
mean and median, TPOT and ITL means, E2E mean (where published) and output throughput with the
measured ones. Validation only: nothing is fitted here.

  /usr/bin/python3 docs/fidelity/serving/validate_serving_b.py build-dev/cli/kvsim [cost_model]

writes docs/fidelity/serving/results_b[_<cost_model>].{csv,md}. A run is replayed with what its
client sent (dataset lengths, arrivals, request count) and its server's stated settings, never
its latencies; a run kvsim cannot express is skipped and counted with the reason.
"""
import math
import os
import re
import shlex
import statistics
import sys
from collections import defaultdict

from serving_common import HERE, SATURATED_TTFT_S, error, load_runs, measured_values, simulate, \
    write_csv

# Hugging Face id (as the lab's command names it) -> (kvsim preset, weight dtype). An FP8
# checkpoint of a model whose preset is bf16 is that preset with fp8 weights; presets that carry
# their checkpoint's quantization (qwen3-32b-fp8, gpt-oss's mxfp4, DeepSeek-R1's fp8) keep it.
# Qwen3-235B-A22B-Instruct-2507 has Qwen3-235B-A22B's architecture (its context is longer).
MODELS = {
    "Qwen/Qwen3-8B": ("qwen3-8b", "bf16"),
    "Qwen/Qwen3-8B-FP8": ("qwen3-8b", "fp8"),
    "Qwen/Qwen3-14B": ("qwen3-14b", "bf16"),
    "Qwen/Qwen3-14B-FP8": ("qwen3-14b", "fp8"),
    "Qwen/Qwen3-32B": ("qwen3-32b", "bf16"),
    "Qwen/Qwen3-32B-FP8": ("qwen3-32b-fp8", "bf16"),
    "Qwen/Qwen3-235B-A22B-Instruct-2507": ("qwen3-235b-a22b", "bf16"),
    "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8": ("qwen3-235b-a22b", "fp8"),
    "openai/gpt-oss-20b": ("gpt-oss-20b", "bf16"),
    "openai/gpt-oss-120b": ("gpt-oss-120b", "bf16"),
    "deepseek-ai/DeepSeek-R1-0528": ("deepseek-r1", "bf16"),
    "/workspace/DeepSeek-R1-0528": ("deepseek-r1", "bf16"),
}
DEVICES = {"H100-SXM-80GB": "h100-sxm", "A100-SXM-80GB": "a100-80g", "H200-SXM-141GB": "h200"}
ENGINES = ("vllm", "sglang")
# Server flags that change nothing kvsim models (addresses, parsers, templates, the model name).
NEUTRAL_FLAGS = {"-m", "--host", "--port", "--model", "--model-path", "--reasoning-parser",
                 "--tool-call-parser", "--chat-template", "--tokenizer-mode",
                 "--enable-auto-tool-choice", "--trust-remote-code"}
TP_FLAGS = {"-tp", "--tp", "--tp-size", "--tensor-parallel-size"}
# vLLM flags with a scenario field of the same meaning (sglang's other flags are not mapped).
VLLM_FLAGS = {"--max-model-len": "scheduler.max_model_len",
              "--max-num-batched-tokens": "scheduler.max_num_batched_tokens",
              "--max-num-seqs": "scheduler.max_num_seqs",
              "--gpu-memory-utilization": "cache.mem_fraction"}
METRICS = ["ttft_mean", "ttft_median", "tpot", "itl", "e2e", "throughput"]
UNITS = {"ttft_mean": "s", "ttft_median": "s", "tpot": "ms", "itl": "ms", "e2e": "s",
         "throughput": "tok/s"}
# How far the client's mean prompt may be from --random-input-len for the lengths to count as
# the asked ones (the largest gap seen, DeepSeek-R1's 127 of 128 tokens, is 0.8%).
PROMPT_SLACK = 0.01
METRIC_TITLES = {"ttft_mean": "TTFT mean", "ttft_median": "TTFT median", "tpot": "TPOT mean",
                 "itl": "ITL mean", "e2e": "E2E mean", "throughput": "output tok/s"}
COMMAND = "/usr/bin/python3 docs/fidelity/serving/validate_serving_b.py {kvsim}"


def server_flags(run):
    """[(flag, value or None)] of the server command (GPUStack's "[Backend Parameters: ...]"
    lists included); a flag's value is the next word unless that is a flag too."""
    text = re.sub(r"\w[\w ]*Parameters:", " ", run["server_command"]).strip("[] ")
    words = shlex.split(text)
    out = []
    for index, word in enumerate(words):
        if not word.startswith("-"):
            continue
        if "=" in word:
            out.append(tuple(word.split("=", 1)))
        else:
            following = words[index + 1] if index + 1 < len(words) else None
            out.append((word, None if following is None or following.startswith("-") else following))
    return out


def tensor_parallel(run):
    """runs.csv's tp column: "8", "1 (not set)", "not set (engine default 1)", "8]"."""
    found = re.search(r"\d+", run["tp"])
    return int(found.group()) if found else 1


def skip_reason(run):
    """Why the run cannot be expressed exactly, or "" when it can (lengths checked later)."""
    if "Ascend" in run["gpu"]:
        return "Ascend 910B (vLLM-Ascend, MindIE)"
    if run["engine"] not in ENGINES:
        return f"engine {run['engine']}: kvsim models no TensorRT-LLM"
    if run["model"] not in MODELS:
        return "model without a kvsim preset (GLM, Qwen3.5, DeepSeek-V3.2's sparse attention)"
    if run["model"].endswith("-AWQ"):
        return "AWQ checkpoint"
    flags = dict(server_flags(run))
    text = run["server_command"] + " " + run["section"]
    if "speculative" in text:
        return "speculative decoding"
    if run["ep"] or run["dp"] or {"--enable-dp-attention", "--enable-expert-parallel", "--dp",
                                  "--dp-size", "--ep-size"} & set(flags):
        return "expert or data parallelism (EP, DP, DP attention)"
    if {"-pp", "--pp-size"} & set(flags):
        return "pipeline parallelism"
    for flag in flags:
        known = NEUTRAL_FLAGS | TP_FLAGS | (set(VLLM_FLAGS) if run["engine"] == "vllm" else set())
        if flag not in known:
            return f"server flag {flag} (no scenario field)"
    return ""


def client_option(run, name):
    found = re.search(rf"(?:--{name}[ =]|{name.replace('-', '_')}=)(\S+)", run["client_command"])
    return found.group(1) if found else None


def length_yaml(length, range_ratio):
    """A request length: fixed, or vllm bench serve's RandomDataset integers drawn uniformly from
    [floor(L (1 - r)), ceil(L (1 + r))] for --random-range-ratio r (its default, 0.0, is fixed)."""
    if range_ratio == 0:
        return str(length)
    low = math.floor(length * (1 - range_ratio))
    high = math.ceil(length * (1 + range_ratio))
    return f"{{dist: uniform, min: {low}, max: {high}}}"


def workload(run, measured):
    """(prompt, output, lengths): the lengths to replay and how well they are known.
    "exact": vllm bench serve's random prompts (range ratio 0) all have one length, the client's
    count of its decoded and re-encoded prompt, a few tokens under --random-input-len (3,996 of
    4,000 for Qwen3): replayed at total_input_tokens / requests, which must lie within
    PROMPT_SLACK of the asked length, and every request generated --random-output-len tokens
    (total_generated_tokens says so). "mean": a random run whose requests stopped early (no
    --ignore-eos), "sharegpt": a ShareGPT run; of both only the means are published, and every
    request is replayed at the run's mean lengths."""
    count = measured[("whole run", "requests_succeeded", "count")]
    total_in = measured[("whole run", "total_input_tokens", "value")]
    total_out = measured[("whole run", "total_generated_tokens", "value")]
    prompt, output = round(total_in / count), max(1, round(total_out / count))
    if run["dataset"].lower() != "random":
        return prompt, output, "sharegpt"
    asked_prompt, asked_output = int(run["input_len"]), int(run["output_len"])
    exact = abs(prompt - asked_prompt) <= PROMPT_SLACK * asked_prompt and \
        total_out == asked_output * count
    return prompt, output, "exact" if exact else "mean"


def arrival_yaml(run):
    """All at t = 0 (no --request-rate) or a constant rate, and the client's concurrency cap."""
    rate = run["request_rate"]
    lines = "    arrival: burst\n" if rate in ("", "inf") else \
        f"    arrival: constant\n    rate: {float(rate):g}\n"
    cap = f"  max_concurrency: {int(run['max_concurrency'])}\n" if run["max_concurrency"] else ""
    return lines, cap


def scenario_yaml(run, prompt, output, lengths):
    preset, weight_dtype = MODELS[run["model"]]
    ratio = float(client_option(run, "random-range-ratio") or 0) if lengths == "exact" else 0.0
    settings = defaultdict(list)
    for flag, value in server_flags(run):
        if run["engine"] == "vllm" and flag in VLLM_FLAGS:
            section, field = VLLM_FLAGS[flag].split(".")
            settings[section].append(f"{field}: {value}")
    blocks = "".join(f"{section}: {{{', '.join(fields)}}}\n" for section, fields in settings.items())
    arrival, cap = arrival_yaml(run)
    return f"""name: {run['run_id']}
model: {preset}
device: {DEVICES[run['gpu']]}
num_devices: {tensor_parallel(run)}
weight_dtype: {weight_dtype}
engine: {{name: {run['engine']}, version: {run['engine_version']}}}
{blocks}workload:
{cap}  synthetic:
{arrival}    num_requests: {int(run['num_requests'])}
    prompt_tokens: {length_yaml(prompt, ratio)}
    output_tokens: {length_yaml(output, ratio)}
output: {{requests_csv: false, timeseries: false}}
"""


def measured_metrics(measured):
    """The published means and medians in s (TTFT, E2E), ms (TPOT, ITL) and tok/s."""
    def get(metric, stat):
        return measured.get(("whole run", metric, stat))
    out = {"ttft_mean": get("ttft", "mean") / 1e3, "ttft_median": get("ttft", "median") / 1e3,
           "tpot": get("tpot", "mean"), "itl": get("itl", "mean"),
           "e2e": get("e2e", "mean"), "throughput": get("throughput_output_tokens_per_s", "value")}
    return out


def kvsim_metrics(summary, output):
    """kvsim's client-side figures. ITL mean, as vllm bench serve pools it (every gap of every
    request), is (E2E mean - TTFT mean) / (output - 1) when every request has `output` tokens."""
    ttft, e2e = summary["ttft_s"], summary["e2e_s"]
    itl = (e2e["mean"] - ttft["mean"]) / (output - 1) * 1e3 if output > 1 else float("nan")
    return {"ttft_mean": ttft["mean"], "ttft_median": ttft["p50"],
            "tpot": summary["tpot_s"]["mean"] * 1e3, "itl": itl, "e2e": e2e["mean"],
            "throughput": summary["output_tokens_per_s"]}


def compare(run, summary, measured, prompt, output, lengths):
    row = {"run": run["run_id"], "engine": f"{run['engine']} {run['engine_version']}",
           "model": MODELS[run["model"]][0] + ("" if MODELS[run["model"]][1] == "bf16" else " fp8"),
           "gpu": DEVICES[run["gpu"]], "tp": tensor_parallel(run),
           "requests": int(run["num_requests"]), "asked": f"{run['input_len']} / {run['output_len']}".replace("ShareGPT / ShareGPT", "ShareGPT"),
           "concurrency": run["max_concurrency"], "prompt": prompt, "output": output,
           "lengths": lengths}
    meas, sim = measured_metrics(measured), kvsim_metrics(summary, output)
    for metric in METRICS:
        have = meas[metric] is not None
        row[f"{metric}_measured"] = meas[metric] if have else ""
        row[f"{metric}_kvsim"] = sim[metric]
        row[f"{metric}_error"] = error(sim[metric], meas[metric]) if have else ""
    row["measured_saturated"] = meas["ttft_mean"] > SATURATED_TTFT_S
    row["kvsim_saturated"] = sim["ttft_mean"] > SATURATED_TTFT_S
    return row


def group_medians(rows, key):
    """{group: (count, {metric: (median |error|, median signed error)})} over rows by key."""
    groups = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    out = {}
    for name, members in sorted(groups.items()):
        stats = {}
        for metric in METRICS:
            errors = [r[f"{metric}_error"] for r in members if r[f"{metric}_error"] != ""
                      and not math.isnan(r[f"{metric}_error"])]
            stats[metric] = (statistics.median(abs(e) for e in errors),
                             statistics.median(errors)) if errors else None
        out[name] = (len(members), stats)
    return out


def summary_lines(rows, title, key):
    lines = [f"| {title} | runs | " + " | ".join(METRIC_TITLES[m] for m in METRICS) +
             " | saturation disagrees |",
             "|---|---:|" + "---:|" * len(METRICS) + "---:|"]
    for name, (count, stats) in group_medians(rows, key).items():
        cells = [f"{s[0]:.0%} ({s[1]:+.0%})" if s else "n/a" for s in (stats[m] for m in METRICS)]
        disagree = sum(1 for r in rows if key(r) == name and r["measured_saturated"] != r["kvsim_saturated"])
        lines.append(f"| {name} | {count} | " + " | ".join(cells) + f" | {disagree} |")
    return lines


def run_lines(rows):
    lines = ["| run | engine | model | GPU | TP | requests | in / out | " +
             " | ".join(f"{METRIC_TITLES[m]} ({UNITS[m]}) meas / kvsim" for m in METRICS) +
             " | saturated meas / kvsim |",
             "|---|---|---|---|---:|---:|---|" + "---:|" * len(METRICS) + "---|"]
    for r in rows:
        cells = []
        for m in METRICS:
            if r[f"{m}_measured"] == "":
                cells.append(f"- / {r[f'{m}_kvsim']:.3g}")
            else:
                cells.append(f"{r[f'{m}_measured']:.3g} / {r[f'{m}_kvsim']:.3g} ({r[f'{m}_error']:+.0%})")
        lines.append(f"| {r['run']} | {r['engine']} | {r['model']} | {r['gpu']} | {r['tp']} | "
                     f"{r['requests']} | {r['prompt']} / {r['output']} | " + " | ".join(cells) +
                     f" | {'yes' if r['measured_saturated'] else 'no'} / "
                     f"{'yes' if r['kvsim_saturated'] else 'no'} |")
    return lines


def arrival_of(row):
    return f"closed loop, {row['concurrency']} in flight" if row["concurrency"] else "burst"


def mean_section(rows, title, why):
    """A table of runs replayed at their mean lengths, summarised by engine and by arrival."""
    if not rows:
        return []
    return ["", f"### {title}", "", why, "",
            *summary_lines(rows, "by engine", lambda r: r["engine"].split()[0]), "",
            *summary_lines(rows, "by arrival", arrival_of), "",
            *summary_lines(rows, "all", lambda r: "all"), "", *run_lines(rows)]


def write_md(path, rows, skipped, cost_model, command):
    kinds = {kind: [r for r in rows if r["lengths"] == kind] for kind in ("exact", "mean", "sharegpt")}
    exact = kinds["exact"]
    total = len(rows) + sum(len(v) for v in skipped.values())
    lines = [f"Source B (GPUStack performance lab), kvsim cost model {cost_model}: {total} runs; "
             f"{len(exact)} random-dataset runs replayed with every request's lengths, "
             f"{len(kinds['mean'])} random and {len(kinds['sharegpt'])} ShareGPT runs with mean "
             f"lengths only; {total - len(rows)} skipped. Regenerate: `{command}`.",
             "",
             "Each cell: median |error| over the runs (median signed error), kvsim against measured. "
             f"Saturated: TTFT mean over {SATURATED_TTFT_S} s. The random runs send all their "
             "requests at t = 0 (`vllm bench serve` without `--request-rate`), so TTFT is mostly "
             "queueing and output throughput the engine's capacity. kvsim's ITL mean is its "
             "(E2E - TTFT) / (output - 1), as `vllm bench serve` pools every gap; E2E is not "
             "printed by `vllm bench serve`. Prompts are the client's counted mean (vLLM's random "
             "prompts come out a few tokens under `--random-input-len`).",
             "",
             "### Random dataset, every request's lengths", ""]
    lines += summary_lines(exact, "by engine", lambda r: r["engine"].split()[0])
    lines += ["", *summary_lines(exact, "by GPU", lambda r: r["gpu"])]
    lines += ["", *summary_lines(exact, "by asked input / output", lambda r: r["asked"])]
    lines += ["", *summary_lines(exact, "all", lambda r: "all")]
    lines += summary_lines([r for r in exact if r["asked"] != "128 / 4"], "all but 128 / 4",
                           lambda r: "all but 128 / 4")[2:]
    lines += ["", *run_lines(exact)]
    lines += mean_section(kinds["mean"], "Random dataset, mean lengths only",
                          "The server generated fewer tokens than `--random-output-len` asked (no "
                          "`--ignore-eos`): replayed with every request at the run's mean output "
                          "length, which is not the run's distribution.")
    lines += mean_section(kinds["sharegpt"], "ShareGPT, mean lengths only",
                          "ShareGPT prompts and outputs vary from request to request; only the totals "
                          "are published, so every request is replayed at the mean lengths. Under a "
                          "burst the distribution decides the queueing, so TTFT here is not a "
                          "validation; the closed loops' TPOT (a few requests in flight) is the "
                          "cleanest decode check.")
    lines += ["", "### Skipped", "", "| reason | runs | run ids |", "|---|---:|---|"]
    for reason, ids in sorted(skipped.items(), key=lambda item: -len(item[1])):
        lines.append(f"| {reason} | {len(ids)} | {' '.join(ids)} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    kvsim = sys.argv[1]
    cost_model = sys.argv[2] if len(sys.argv) > 2 else ""
    rows, skipped, cost_names = [], defaultdict(list), set()
    for run in load_runs("B"):
        reason = skip_reason(run)
        if reason:
            skipped[reason].append(run["run_id"])
            continue
        measured = measured_values("measurements_b.csv", run["run_id"])
        prompt, output, lengths = workload(run, measured)
        summary = simulate(kvsim, scenario_yaml(run, prompt, output, lengths), cost_model)
        cost_names.add(summary["cost_model"])
        if summary["requests_dropped"]:
            why = ", ".join(k for k, v in summary["dropped"].items() if v)
            skipped[f"kvsim drops requests the server served ({why})"].append(run["run_id"])
            continue
        rows.append(compare(run, summary, measured, prompt, output, lengths))
        print(run["run_id"], "done", file=sys.stderr)
    suffix = f"_{cost_model}" if cost_model else ""
    write_csv(os.path.join(HERE, f"results_b{suffix}.csv"), rows)
    write_md(os.path.join(HERE, f"results_b{suffix}.md"), rows, skipped, ", ".join(sorted(cost_names)),
             COMMAND.format(kvsim=kvsim) + (f" {cost_model}" if cost_model else ""))


if __name__ == "__main__":
    main()
