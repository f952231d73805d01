#!/usr/bin/env bash
# Times the cluster simulator against the single-replica simulator per simulated request, on
# the Mooncake conversation trace (12,031 requests in every run), as a user runs it (files
# written). The baseline is the lone engine on the same scenario (its cluster sections cleared
# by --set); every other row is a cluster run, and its ratio is its median wall time per
# simulated request over the baseline's, both measured in this run (and the same for the mean
# user CPU seconds, steadier on a busy machine). Target (issue 8): <= 2x.
# Events per wall second are shown too: a cluster of R replicas simulates R engines' iterations,
# so its events per request grow with R even when each event costs the same.
# The runs, baseline first, are those of bench/cluster_runs.tsv.
#   bench/cluster_speed.sh [build-dir] [runs]      (defaults: build, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
kvsim="${1:-build}/cli/kvsim"
runs="${2:-5}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source bench/hyperfine_json.sh
mean_user() {  # mean user CPU seconds of a hyperfine JSON export (hyperfine keeps no list)
  python3 -c 'import json, sys
print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["user"])' "$1"
}

base_per_request=""
measure() {  # name args...: prints one table row
  local name=$1
  shift
  hyperfine --style none --warmup 1 --runs "$runs" --export-json "$out/$name.json" \
    "$kvsim simulate $* --out $out/$name" >/dev/null </dev/null
  "$kvsim" simulate "$@" --json >"$out/$name.summary.json" </dev/null
  local wall user row
  wall=$(median "$out/$name.json")
  user=$(mean_user "$out/$name.json")
  row=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); wall = float(sys.argv[2]); user = float(sys.argv[3])
n = d["requests_arrived"]; per = wall / n * 1e6; per_user = user / n * 1e6
base = [float(x) for x in sys.argv[5].split(",")] if sys.argv[5] else [per, per_user]
print("%.3f,%.3f@@| `%s` | %d | %.2f s | %.2f s | %.0f | %.0f | %.1f | %.2fx | %.2fx |" % (
      per, per_user, sys.argv[4], d.get("num_replicas", 1), wall, user, d["events"] / wall,
      d["events"] / n, per, per / base[0], per_user / base[1]))' \
    "$out/$name.summary.json" "$wall" "$user" "$*" "$base_per_request")
  [ -z "$base_per_request" ] && base_per_request=${row%%@@*}
  echo "${row#*@@}"
}

echo "| kvsim simulate ... | replicas | median wall ($runs runs) | mean user CPU | events/wall s | events/request | wall us/request | wall ratio vs lone | CPU ratio vs lone |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
i=0
while IFS=$'\t' read -r _ args <&3; do
  i=$((i + 1))
  measure "run$i" $args  # word splitting on purpose: one argument per word
done 3< <(grep -v '^#' bench/cluster_runs.tsv)
