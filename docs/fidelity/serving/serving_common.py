"""Helpers shared by the replays of docs/fidelity/serving (validate_serving.py for source A,
validate_serving_b.py for source B): reading runs.csv and a source's measurements, running
`kvsim simulate FILE --json` on a scenario, signed errors and their medians, and the CSV writer.
Validation only: nothing here fits anything to the measurements.
"""
import csv
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# A run (or stage) counts as saturated when requests wait seconds for their first token: a
# healthy server answers in well under a second, an overloaded one's queue grows through the
# run (source A's overloaded stages have mean TTFTs of 100 s and more).
SATURATED_TTFT_S = 2.0


def load_runs(prefix):
    """runs.csv's rows whose run_id starts with `prefix` (the source's letter), in file order."""
    with open(os.path.join(HERE, "runs.csv")) as f:
        return [r for r in csv.DictReader(f) if r["run_id"].startswith(prefix)]


def measured_values(file_name, run_id):
    """{(stage, metric, stat): value} of one run in a measurements_*.csv, in its published unit."""
    out = {}
    with open(os.path.join(HERE, file_name)) as f:
        for row in csv.DictReader(f):
            if row["run_id"] == run_id:
                out[(row["stage"], row["metric"], row["stat"])] = float(row["value"])
    return out


def simulate(kvsim, yaml_text, cost_model):
    """kvsim's summary.json of the scenario `yaml_text` (optionally another cost_model.kind)."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(yaml_text)
        path = f.name
    try:
        args = [kvsim, "simulate", path, "--json"]
        if cost_model:
            args += ["--set", f"cost_model.kind={cost_model}"]
        done = subprocess.run(args, capture_output=True, text=True, check=True)
        return json.loads(done.stdout)
    finally:
        os.unlink(path)


def error(sim, meas):
    """kvsim's signed relative error against the measurement (NaN where it is 0)."""
    return (sim - meas) / meas if meas else float("nan")


def median_abs(rows, metric):
    """Median |error| of `metric` over rows (their `<metric>_error` fields)."""
    return statistics.median(abs(r[f"{metric}_error"]) for r in rows)


def write_csv(path, rows):
    """rows (dicts with the same keys) as CSV, floats to 6 significant digits."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
