#!/usr/bin/env bash
# Times `kvsim simulate` as a user runs it (files written, per-request rows streamed to disk):
# the Mooncake conversation trace, and the default synthetic workload at 100k and 1M requests.
# Wall time: hyperfine's median; peak memory: /usr/bin/time -v; events/s and simulated
# requests per wall-second from the run's own --json summary; the 1M / 100k ratio from the
# medians of the same run. Targets (issue: discrete-event simulator): Mooncake <= 2 s,
# 1M <= 60 s and <= 1 GiB, 1M / 100k <= 12. The hybrid replay (gemma-3-27b-it, 7 KV cache
# groups) against a dense model of its size (qwen2.5-32b), both on 2 x H100 without host swap:
# target (issue 37, hybrid fast path) gemma / qwen <= 2.
#   bench/simulator_speed.sh [build-dir]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
kvsim="${1:-build}/cli/kvsim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source bench/hyperfine_json.sh

measure() {  # name runs args...: prints one table row
  local name=$1 runs=$2
  shift 2
  hyperfine --style none --warmup "$((runs > 1 ? 1 : 0))" --runs "$runs" \
    --export-json "$out/$name.json" "$kvsim simulate $* --out $out/$name" >/dev/null
  /usr/bin/time -v "$kvsim" simulate "$@" --out "$out/$name" >/dev/null 2>"$out/time.txt"
  local rss
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$out/time.txt")
  "$kvsim" simulate "$@" --json >"$out/$name.summary.json"
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); wall = float(sys.argv[2])
print("| %s | %s s | %s MiB | %.0f | %.0f |" % (sys.argv[3], sys.argv[2], sys.argv[4],
      d["events"] / wall, d["requests_arrived"] / wall))' \
    "$out/$name.summary.json" "$(median "$out/$name.json")" "$name ($runs runs)" "$rss"
}

echo "| run | median wall | peak RSS | events/s | simulated requests/s |"
echo "|---|---:|---:|---:|---:|"
measure mooncake 5 mooncake-conversation
measure synthetic-100k 3 default --set workload.synthetic.num_requests=100000
measure synthetic-1M 1 default --set workload.synthetic.num_requests=1000000
on_h100x2="--set device=h100-sxm --set num_devices=2 --set cache.host_swap_gib=0"
measure mooncake-hybrid 5 mooncake-conversation --set model=gemma-3-27b-it $on_h100x2
measure mooncake-dense 5 mooncake-conversation --set model=qwen2.5-32b $on_h100x2
python3 -c 'import sys; print("1M / 100k wall: %.1fx" % (float(sys.argv[1]) / float(sys.argv[2])))' \
  "$(median "$out/synthetic-1M.json")" "$(median "$out/synthetic-100k.json")"
python3 -c 'import sys; print("hybrid / dense Mooncake wall: %.1fx" % (float(sys.argv[1]) / float(sys.argv[2])))' \
  "$(median "$out/mooncake-hybrid.json")" "$(median "$out/mooncake-dense.json")"
