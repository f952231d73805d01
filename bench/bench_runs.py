"""What the paired speed scripts share: a TSV of runs and the wall time of one kvsim run."""
import subprocess
import time


def read_runs(path):
    """(name, kvsim simulate arguments) per line of a TSV; # lines are comments."""
    with open(path) as f:
        return [tuple(line.rstrip("\n").split("\t")) for line in f
                if line.strip() and not line.startswith("#")]


def wall(kvsim, args, out):
    """Seconds of one `kvsim simulate ARGS --out OUT` (files written, as a user runs it)."""
    start = time.perf_counter()
    subprocess.run([kvsim, "simulate", *args.split(), "--out", out], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start
