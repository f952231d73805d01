#!/usr/bin/env bash
# Prints the measured tables of docs/cluster.md: the Mooncake conversation trace served
# colocated vs disaggregated (mooncake-disaggregated) and with HBM only vs HBM+DRAM vs
# HBM+DRAM+SSD prefix pools, block-granular (tiered-prefix-pool) and in 256-token chunks
# (tiers.chunk_tokens; tiered-prefix-pool-lmcache writes them through). Each row is one
# `kvsim simulate` run whose exact arguments are the row's first column; the numbers come
# from its --json summary.
#   bench/cluster_tables.sh [build-dir]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
kvsim="${1:-build}/cli/kvsim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

row() {  # kind args...: runs kvsim simulate args... --json, prints one table row
  local kind=$1
  shift
  "$kvsim" simulate "$@" --json >"$out/run.json"
  python3 - "$kind" "$out/run.json" "$*" <<'PY'
import json, sys
kind, path, args = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(path))
ms = lambda s: "%.1f" % (s * 1e3)
sec = lambda s: "%.2f" % s
cells = ["`%s`" % args, str(d["num_devices"]), sec(d["ttft_s"]["p50"]), sec(d["ttft_s"]["p99"]),
         ms(d["tpot_s"]["p50"]), ms(d["tpot_s"]["p99"]), "%.0f" % d["output_tokens_per_s"],
         "%.0f" % d["total_tokens_per_s"], "%.1f%%" % (100 * d["prefix_cache_hit_rate"])]
if kind == "disagg":
    t = d.get("kv_transfer_time_s")
    cells.append("%s / %s" % (ms(t["p50"]), ms(t["p99"])) if d.get("kv_transfers") else "-")
else:
    by_tier = d.get("prefix_cache_hit_rate_by_tier", {"hbm": d["prefix_cache_hit_rate"]})
    cells.append(", ".join("%s %.1f%%" % (k, 100 * v) for k, v in by_tier.items()))
    tiers = d.get("tiers", {}).values()
    cells.append("%.0f GiB" % (sum(t["load_bytes"] for t in tiers) / 2**30))
    cells.append("%.0f GiB" % (sum(t.get("written_bytes", 0) for t in tiers) / 2**30))
    wait = d.get("tier_load_wait_s", {"mean": 0, "p99": 0})
    cells.append("%s / %s" % (ms(wait["mean"]), ms(wait["p99"])) if wait["mean"] else "-")
cells.append("%.1f" % d["sim_duration_s"])
print("| " + " | ".join(cells) + " |")
PY
}

echo "| kvsim simulate ... | devices | TTFT p50 (s) | TTFT p99 (s) | TPOT p50 (ms) | TPOT p99 (ms) | output tok/s | total tok/s | prefix hit | KV transfer p50 / p99 (ms) | simulated s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
d=mooncake-disaggregated
row disagg $d --set disaggregation=null --set cluster.replicas=1
row disagg $d --set disaggregation=null --set cluster.replicas=2
row disagg $d
row disagg $d --set workload.time_scale=4 --set disaggregation=null --set cluster.replicas=4
row disagg $d --set workload.time_scale=4 --set disaggregation.prefill=2 --set disaggregation.decode=2
row disagg $d --set workload.time_scale=4 --set disaggregation.prefill=3 --set disaggregation.decode=1
echo
echo "| kvsim simulate ... | devices | TTFT p50 (s) | TTFT p99 (s) | TPOT p50 (ms) | TPOT p99 (ms) | output tok/s | total tok/s | prefix hit | hits by tier | loaded from tiers | written to tiers | load wait mean / p99 (ms) | simulated s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|"
t=tiered-prefix-pool
row tiers $t --set tiers=null
row tiers $t --set tiers.ssd.capacity_gib=0
row tiers $t
row tiers $t --set tiers.ssd.capacity_gib=0 --set tiers.chunk_tokens=256
row tiers $t --set tiers.chunk_tokens=256
row tiers $t-lmcache --set tiers.ssd.capacity_gib=0
row tiers $t-lmcache
