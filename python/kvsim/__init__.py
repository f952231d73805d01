"""kvsim in Python: the KV-cache capacity planner and simulator, with the CLI's numbers.

    import kvsim
    kvsim.capacity(model="llama-3-8b", device="h100-80g")        # dict, as `kvsim capacity --json`
    r = kvsim.simulate("default", set={"cache.block_size": 32})  # as `kvsim simulate --json`
    r.summary, r.requests, r.timeseries                          # dict, pandas DataFrames

Every function calls kvsim's C++ libraries (the extension _kvsim); nothing is recomputed
here. Bad input raises kvsim.Error (a ValueError) with the CLI's message.
"""

import csv
import json
import os
import tempfile

from ._kvsim import Error
from . import _kvsim

__all__ = ["Error", "Result", "capacity", "presets", "simulate"]


def presets():
    """Embedded preset names by kind: {"models": [...], "devices": [...], "scenarios": [...], ...}."""
    return _kvsim.presets()


_CAPACITY_OPTIONS = ("dtype", "weight_dtype", "batch", "seq_len", "block_size", "tp",
                     "kv_budget_bytes", "quant_group", "engine", "engine_version",
                     "mem_fraction", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
                     "cuda_graph_memory", "enforce_eager", "entry_point", "device_used_bytes")


def capacity(model, device="", *, dtype=None, weight_dtype=None, batch=None, seq_len=None,
             block_size=None, tp=None, kv_budget_bytes=None, quant_group=None, engine=None,
             engine_version=None, mem_fraction=None, max_model_len=None,
             max_num_batched_tokens=None, max_num_seqs=None, cuda_graph_memory=None,
             enforce_eager=None, entry_point=None, device_used_bytes=None):
    """KV bytes per token/block/request and what fits: `kvsim capacity --json` as a dict.

    model: a preset name, YAML file or Hugging Face config.json. device: a preset name or
    YAML file, a comma-separated list of them, or "all" ("" = no device: no budget); several
    devices give a list of dicts. The options are the CLI's (--dtype ..., --engine sglang,
    --mem-fraction 0.85 ...); None = its default. cuda_graph_memory: True = subtract the
    CUDA-graph estimate, False = ignore it (the CLI's subtract | ignore).
    """
    options = dict(locals())
    text = _kvsim.capacity_json(model, device,
                                **{name: options[name] for name in _CAPACITY_OPTIONS})
    return json.loads(text)


class Result:
    """One simulation: .summary (dict, `kvsim simulate --json`), .requests and .timeseries
    (pandas DataFrames of requests.csv and timeseries.csv; lists of dicts without pandas; None
    when the scenario writes no such file), .tables (every CSV file the run wrote, by stem:
    a cluster writes replicas, tiers and transfers instead of timeseries)."""

    def __init__(self, summary, tables):
        self.summary = summary
        self.tables = tables

    @property
    def requests(self):
        return self.tables.get("requests")

    @property
    def timeseries(self):
        return self.tables.get("timeseries")

    def __repr__(self):
        return "kvsim.Result(scenario={!r}, tables={})".format(
            self.summary.get("scenario"), sorted(self.tables))


def _override_text(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _overrides(set_):
    if set_ is None:
        return []
    if isinstance(set_, dict):
        return ["{}={}".format(key, _override_text(value)) for key, value in set_.items()]
    return [str(assignment) for assignment in set_]


def _read_table(path):
    try:
        import pandas
    except ImportError:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    return pandas.read_csv(path)


def simulate(scenario, set=None, *, trace=None, trace_format=None, skip_bad_rows=False,
             seed=None, progress=None):
    """Runs a scenario (a preset name or YAML file) as `kvsim simulate` does; returns a Result.

    set: overrides, {"cache.block_size": 32} or ["cache.block_size=32"] (the CLI's --set);
    trace: a trace file replacing the workload; seed: the workload's seed; progress: called
    with the share of the workload done, in [0, 1], while the run goes on. Ctrl-C stops the
    run (KeyboardInterrupt); the GIL is released while it runs.
    """
    with tempfile.TemporaryDirectory(prefix="kvsim-") as out_dir:
        text = _kvsim.simulate_json(scenario, _overrides(set), trace or "", trace_format or "",
                                    bool(skip_bad_rows), seed, out_dir, progress)
        tables = {}
        for name in sorted(os.listdir(out_dir)):
            if name.endswith(".csv"):
                tables[name[:-len(".csv")]] = _read_table(os.path.join(out_dir, name))
    return Result(json.loads(text), tables)
