#!/usr/bin/env python3
"""kvsim's predictions against published end-to-end measurements (docs/fidelity.md).

Usage: /usr/bin/python3 docs/fidelity/validate.py KVSIM_BINARY [OUT_DIR]
  Reads docs/fidelity/measurements.csv (published rows, each with its source), simulates each
  measured run with `kvsim simulate` — B requests of the row's input and output lengths, all
  arriving at t = 0, every prompt in one prefill iteration (a static batch) — with the default
  cost model (kind: operators) and with the roofline, and writes OUT_DIR/results.csv and
  OUT_DIR/results.md (default: docs/fidelity). Nothing here is fitted: the cost model's
  parameters come from the kernel profiles (docs/cost_model.md).

Metrics: ttft_ms = mean TTFT; tpot_p50_ms / tpot_ms = TPOT p50 / mean; e2e_ms = mean request
latency; throughput_out_tok_s_total = output tokens / simulated time (per replica);
throughput_out_tok_s_per_gpu = the same / TP. Engine settings a row states are applied:
enforce_eager=True (Qwen "Setting 1") runs without CUDA graphs. A row of an engine kvsim has an
execution profile for runs with it (vLLM's rows, from 2024: vllm-v0, decode graphs and the
custom all-reduce; docs/cost_model.md "Engine execution profiles"); the others (TensorRT-LLM,
LMDeploy, NIM, NeMo) run the generic execution (cost_model.cuda_graphs: decode).
"""
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICES = {"A100-SXM4-80GB": "a100-80g", "H100-SXM5-80GB": "h100-sxm", "H200-SXM-141GB": "h200"}


def llama2(name, layers, hidden, heads, kv, ffn, params):
    return {"name": name, "source": "config.json", "description": name, "attention": "mha" if kv == heads else "gqa", "num_layers": layers,
            "hidden_size": hidden, "num_attention_heads": heads, "num_kv_heads": kv,
            "head_dim": hidden // heads, "intermediate_size": ffn, "vocab_size": 32000,
            "max_position_embeddings": 4096, "num_params": params}


# Preset names, or inline geometry from each model's config.json (Llama 2: 4096 positions).
MODELS = {
    "Llama-2-7B": llama2("llama2-7b", 32, 4096, 32, 32, 11008, 6738415616),
    "Llama-2-13B": llama2("llama2-13b", 40, 5120, 40, 40, 13824, 13015864320),
    "Llama-2-70B": "llama2-70b",
    "Mistral-7B-v0.1": "mistral-7b",
    "InternLM-20B": {"name": "internlm-20b", "source": "config.json", "description": "InternLM-20B", "attention": "mha", "num_layers": 60,
                     "hidden_size": 5120, "num_attention_heads": 40, "num_kv_heads": 40,
                     "head_dim": 128, "intermediate_size": 13824, "vocab_size": 103168,
                     "max_position_embeddings": 4096, "num_params": 20000000000},
    "Qwen2.5-7B-Instruct": "qwen2.5-7b",
    "Qwen2.5-14B-Instruct": {"name": "qwen2.5-14b", "source": "config.json", "description": "Qwen2.5-14B", "attention": "gqa", "num_layers": 48,
                             "hidden_size": 5120, "num_attention_heads": 40, "num_kv_heads": 8,
                             "head_dim": 128, "intermediate_size": 13824, "vocab_size": 152064,
                             "max_position_embeddings": 131072, "num_params": 14770033664},
    "Qwen2.5-32B-Instruct": "qwen2.5-32b",
    "Qwen2.5-72B-Instruct": "qwen2.5-72b",
    "Llama-3.1-8B": "llama3-8b",
    "Llama-3.1-Nemotron-Safety-Guard-8B (Llama-3.1-8B geometry)": "llama3-8b",
    "Meta-Llama-3-70B": "llama3-70b",
    "Llama-3.3-70B-Instruct (Llama-3.1-70B geometry)": "llama3-70b",
}


def yaml_value(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {yaml_value(x)}" for k, x in v.items()) + "}"
    return str(v)


# The engines kvsim has an execution profile for, by the measurements' engine column.
PROFILES = {"vLLM": "vllm-v0"}


def frontend(row):
    """The cost_model entry for the client's front end: the offline benchmarks (static batches
    timed inside the engine's process) have none; the rows a client measured over HTTP
    (genai-perf, AIPerf) keep kvsim's default."""
    over_http = "genai-perf" in row["conditions"] or "AIPerf" in row["conditions"]
    return "" if over_http else ", frontend_s: 0"


def execution(row, kind):
    """The scenario's engine line and cost_model section for the row."""
    eager = "enforce_eager=True" in row["conditions"] and "etting" in row["conditions"]
    profile = PROFILES.get(row["engine"])
    front = frontend(row)
    if kind != "operators":
        return "engine: vllm", f"cost_model: {{kind: {kind}{front}}}"
    if profile:
        return (f"engine: {{name: {profile}, enforce_eager: {'true' if eager else 'false'}}}",
                f"cost_model: {{kind: operators, cuda_graphs: engine{front}}}")
    graphs = "none" if eager else "decode"
    return "engine: vllm", f"cost_model: {{kind: operators, cuda_graphs: {graphs}{front}}}"


def scenario(row, kind, trace):
    b, i, o, tp = (int(row[k]) for k in ("batch_size", "input_tokens", "output_tokens", "tp"))
    dtype = {"fp16": "fp16", "bf16": "bf16", "fp8": "fp8"}.get(row["weight_dtype"], "fp16")
    engine, cost_model = execution(row, kind)
    blocks = math.ceil(b * (i + o) / 16) + b + 16
    return "\n".join([
        f"name: {row['id']}",
        f"model: {yaml_value(MODELS[row['model']])}",
        f"device: {DEVICES[row['device']]}",
        f"num_devices: {tp}",
        f"weight_dtype: {dtype}",
        engine,
        f"cache: {{prefix_caching: false, dtype: {'fp8' if dtype == 'fp8' else 'fp16'}, num_blocks_override: {blocks}}}",
        f"scheduler: {{max_num_seqs: {b}, max_num_batched_tokens: {max(b * i, 8192)}, chunked_prefill: false}}",
        f"workload: {{trace: {trace}}}",
        cost_model,
        ""])


def predict(kvsim, row, kind, tmp):
    trace = os.path.join(tmp, f"{row['id']}.csv")
    with open(trace, "w") as f:
        f.write("arrival_s,prompt_tokens,output_tokens\n")
        for _ in range(int(row["batch_size"])):
            f.write(f"0,{row['input_tokens']},{row['output_tokens']}\n")
    path = os.path.join(tmp, f"{row['id']}-{kind}.yaml")
    with open(path, "w") as f:
        f.write(scenario(row, kind, trace))
    run = subprocess.run([kvsim, "simulate", path, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{row['id']}: {run.stderr.strip()}")
    s = json.loads(run.stdout)
    metric = row["metric"]
    if s.get("preemptions", 0):
        raise RuntimeError(f"{row['id']}: preempted")
    return {"ttft_ms": s["ttft_s"]["mean"] * 1e3, "tpot_p50_ms": s["tpot_s"]["p50"] * 1e3,
            "tpot_ms": s["tpot_s"]["mean"] * 1e3, "e2e_ms": s["e2e_s"]["mean"] * 1e3,
            "throughput_out_tok_s_total": s["output_tokens_per_s"],
            "throughput_out_tok_s_per_gpu": s["output_tokens_per_s"] / int(row["tp"])}[metric]


def main():
    kvsim = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else HERE
    with open(os.path.join(HERE, "measurements.csv")) as f:
        rows = list(csv.DictReader(f))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            value = float(row["value"])
            r = {k: row[k] for k in ("id", "source", "engine", "model", "weight_dtype", "device", "tp",
                                     "batch_size", "input_tokens", "output_tokens", "metric", "usable")}
            r["measured"] = value
            for kind in ("operators", "roofline"):
                p = predict(kvsim, row, kind, tmp)
                r[kind] = p
                r[kind + "_error"] = p / value - 1
            results.append(r)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        w.writeheader()
        w.writerows(results)
    lines = []
    for group, sel in (("dense fp16/bf16 (usable: yes and yes-caveat)", lambda r: r["usable"] != "fp8"),
                       ("dense, usable: yes only (no NeMo, no truncated NIM row)", lambda r: r["usable"] == "yes"),
                       ("fp8 weights and KV (H100/H200; not a target)", lambda r: r["usable"] == "fp8")):
        g = [r for r in results if sel(r)]
        for kind in ("operators", "roofline"):
            e = [abs(r[kind + "_error"]) for r in g]
            lines.append(f"| {group} | {kind} | {len(g)} | {statistics.median(e):.1%} | {max(e):.1%} | "
                         f"{sum(x <= 0.25 for x in e)}/{len(e)} |")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("| rows | cost model | n | median \\|error\\| | max \\|error\\| | within 25% |\n|---|---|---:|---:|---:|---:|\n")
        f.write("\n".join(lines) + "\n\n")
        f.write("| id | source | model | device | TP | batch | in | out | metric | measured | operators | error | roofline | error |\n")
        f.write("|---|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n")
        for r in results:
            f.write(f"| {r['id']} | {r['source']} | {r['model']} | {r['device']} | {r['tp']} | {r['batch_size']} | "
                    f"{r['input_tokens']} | {r['output_tokens']} | {r['metric']}{' (fp8)' if r['usable'] == 'fp8' else ''}"
                    f"{' (caveat)' if r['usable'] == 'yes-caveat' else ''} | {r['measured']:g} | {r['operators']:.4g} | "
                    f"{r['operators_error']:+.1%} | {r['roofline']:.4g} | {r['roofline_error']:+.1%} |\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
