#!/usr/bin/env bash
# The sweep speed-up benchmark: the 64-point sweep bench/sweep_64.yaml with --jobs 1 and
# --jobs 2, timed by hyperfine in one run (medians), each run into a fresh folder.
set -euo pipefail
cd "$(dirname "$0")/.."
kvsim=build/cli/kvsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hyperfine --warmup 1 --runs "${RUNS:-7}" --export-json "$out/sweep.json" \
  --prepare "rm -rf $out/j1 $out/j2" \
  "$kvsim sweep bench/sweep_64.yaml --jobs 1 --out $out/j1" \
  "$kvsim sweep bench/sweep_64.yaml --jobs 2 --out $out/j2"
python3 - "$out/sweep.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
one, two = runs[0]["median"], runs[1]["median"]
print(f"median --jobs 1: {one:.3f} s, --jobs 2: {two:.3f} s, speed-up {one / two:.2f}x (target >= 1.7x)")
PY
