#!/usr/bin/env bash
# A parallel cluster run against the serial one (issue 37): the default synthetic workload
# through 16 colocated round_robin replicas, `kvsim simulate --threads 1` and `--threads N`
# alternated run by run (each pair on the same machine at nearly the same time: the ratio is
# paired), every output file of the two compared byte for byte, and the projection for 27 M
# requests (a week of Azure-2024-scale traffic) from the parallel run's median wall time per
# request. Targets: >= 1.8x with 2 threads on the 2-core machine; 27 M requests <= 5 minutes.
#   bench/cluster_threads.sh [build-dir] [requests] [threads] [pairs]
#   (defaults: build, 1000000, 2, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
kvsim="${1:-build}/cli/kvsim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

python3 - "$kvsim" "${2:-1000000}" "${3:-2}" "${4:-3}" "$out" <<'EOF'
import filecmp, os, resource, statistics, subprocess, sys, time
kvsim, requests, threads, pairs, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
    int(sys.argv[4]), sys.argv[5]
args = [kvsim, "simulate", "default", "--set", "cluster.replicas=16",
        "--set", "workload.synthetic.num_requests=%d" % requests]

def run(n, folder):  # wall and user CPU seconds of one run writing its files into folder
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    start = time.perf_counter()
    subprocess.run(args + ["--threads", n, "--out", folder], check=True,
                   stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before

serial, parallel = [], []
for i in range(pairs):
    serial.append(run("1", os.path.join(out, "serial")))
    parallel.append(run(threads, os.path.join(out, "parallel")))
names = sorted(os.listdir(os.path.join(out, "serial")))
same = names == sorted(os.listdir(os.path.join(out, "parallel"))) and all(
    filecmp.cmp(os.path.join(out, "serial", f), os.path.join(out, "parallel", f), shallow=False)
    for f in names)
print("| run | median wall | median user CPU |")
print("|---|---:|---:|")
for name, runs in (("--threads 1", serial), ("--threads " + threads, parallel)):
    print("| %s | %.2f s | %.2f s |" % (name, statistics.median(w for w, _ in runs),
                                        statistics.median(u for _, u in runs)))
ratios = [s[0] / p[0] for s, p in zip(serial, parallel)]
wall = statistics.median(w for w, _ in parallel)
print("%d requests, 16 replicas: speed-up %.2fx (median of %d paired ratios; min %.2fx, max "
      "%.2fx); files %s byte-identical: %s" % (requests, statistics.median(ratios), pairs,
                                                 min(ratios), max(ratios), ", ".join(names), same))
print("27 M requests projected: %.1f minutes with --threads %s, %.1f with one"
      % (wall / requests * 27e6 / 60, threads,
         statistics.median(w for w, _ in serial) / requests * 27e6 / 60))
EOF
