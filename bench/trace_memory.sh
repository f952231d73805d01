#!/usr/bin/env bash
# Peak memory of `kvsim simulate` against the length of a streamed trace: CSV traces of the
# given row counts (Poisson arrivals at 6 req/s, prompts 100-1500 and outputs 20-300 tokens,
# fixed seed) replayed through the default scenario with files written; prints rows, peak RSS
# (/usr/bin/time -v) and wall time per trace. Flat RSS means nothing is kept per request
# (issue 37: a 27 M-row trace streamed at <= 200 MB).
#   bench/trace_memory.sh [build-dir] [rows ...]      (defaults: build, 1000000 2000000 4000000)
set -euo pipefail
cd "$(dirname "$0")/.."
kvsim="${1:-build}/cli/kvsim"
shift || true
rows=("$@")
((${#rows[@]})) || rows=(1000000 2000000 4000000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| trace rows | peak RSS | wall |"
echo "|---:|---:|---:|"
for n in "${rows[@]}"; do
  /usr/bin/python3 - "$n" "$work/trace.csv" <<'PY'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(1)
t = 0.0
with open(path, "w") as f:
    f.write("arrival_s,prompt_tokens,output_tokens\n")
    for _ in range(n):
        t += rng.expovariate(6.0)
        f.write("%.6f,%d,%d\n" % (t, rng.randint(100, 1500), rng.randint(20, 300)))
PY
  /usr/bin/time -v "$kvsim" simulate default --trace "$work/trace.csv" --trace-format csv \
    --out "$work/out" >/dev/null 2>"$work/time.txt"
  awk -F': ' -v n="$n" '/Maximum resident set size/ {rss = $2 / 1024}
    /Elapsed \(wall clock\)/ {wall = $2}
    END {printf "| %d | %.0f MiB | %s |\n", n, rss, wall}' "$work/time.txt"
done
