#!/usr/bin/env bash
# Times `kvsim simulate` as a user runs it (files written, per-request rows streamed to disk):
# the Mooncake conversation trace and the default synthetic workload at 100k and 1M requests.
# Wall time from hyperfine (median of the runs), peak memory from /usr/bin/time -v.
#   bench/simulator_speed.sh [build-dir]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
kvsim="${1:-build}/cli/kvsim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

peak_rss() {  # prints "wall_s peak_MiB" of one run of the command given
  /usr/bin/time -v "$@" >/dev/null 2>"$out/time.txt"
  awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); w = t[1] * 60 + t[2]}
              /Maximum resident set size/ {m = $2 / 1024}
              END {printf "%.2f s wall, %.0f MiB peak RSS\n", w, m}' "$out/time.txt"
}

echo "== Mooncake conversation trace, qwen2.5-7b x a100-80g, prefix caching"
hyperfine --warmup 1 --runs 5 "$kvsim simulate mooncake-conversation --out $out/mooncake"
peak_rss "$kvsim" simulate mooncake-conversation --out "$out/mooncake"

for n in 100000 1000000; do
  echo "== default synthetic workload, $n requests"
  hyperfine --runs "$([[ $n == 100000 ]] && echo 3 || echo 1)" \
    "$kvsim simulate default --set workload.synthetic.num_requests=$n --out $out/synthetic-$n"
  peak_rss "$kvsim" simulate default --set workload.synthetic.num_requests=$n \
    --out "$out/synthetic-$n"
  "$kvsim" simulate default --set workload.synthetic.num_requests=$n --json |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(
      "events/s %.0f, simulated requests per wall-second %.0f" %
      (d["events_per_s"], d["requests_per_wall_s"]))'
done
