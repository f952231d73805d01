"""kvsim in Python: the KV-cache capacity planner and simulator, with the CLI's numbers.

    import kvsim
    kvsim.capacity(model="llama3-8b", device="h100-sxm")         # dict, as `kvsim capacity --json`
    kvsim.layout("llama3-8b", "ascend-910b3", locate=(100, 3, 17))  # `kvsim layout --json`
    r = kvsim.simulate("default", set={"cache.block_size": 32})  # as `kvsim simulate --json`
    r.summary, r.requests, r.timeseries                          # dict, pandas DataFrames
    kvsim.sweep("devices-vs-dtype", jobs=2)                      # DataFrame, one row per point
    kvsim.ppl(["full", "sink:4,60"])                             # `kvsim ppl --json`

Every function calls kvsim's C++ libraries (the extension _kvsim); nothing is recomputed
here. Bad input raises kvsim.Error (a ValueError) with the CLI's message. Without pandas the
tables are dicts of numpy arrays (one per column).
"""

import csv
import json
import os
import tempfile

from ._kvsim import Error
from . import _kvsim

__all__ = ["Error", "Result", "capacity", "layout", "ppl", "presets", "simulate", "sweep"]


def presets():
    """Embedded preset names by kind: {"models": [...], "devices": [...], "scenarios": [...], ...}."""
    return _kvsim.presets()


_CAPACITY_OPTIONS = ("dtype", "weight_dtype", "batch", "seq_len", "block_size", "tp",
                     "kv_budget_bytes", "quant_group", "engine", "engine_version",
                     "mem_fraction", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
                     "cuda_graph_memory", "enforce_eager", "compile_cache", "entry_point",
                     "device_used_bytes")


def capacity(model, device="", *, dtype=None, weight_dtype=None, batch=None, seq_len=None,
             block_size=None, tp=None, kv_budget_bytes=None, quant_group=None, engine=None,
             engine_version=None, mem_fraction=None, max_model_len=None,
             max_num_batched_tokens=None, max_num_seqs=None, cuda_graph_memory=None,
             enforce_eager=None, compile_cache=None, entry_point=None, device_used_bytes=None):
    """KV bytes per token/block/request and what fits: `kvsim capacity --json` as a dict.

    model: a preset name, YAML file or Hugging Face config.json. device: a preset name or
    YAML file, a comma-separated list of them, or "all" ("" = no device: no budget); several
    devices give a list of dicts. The options are the CLI's (--dtype ..., --engine sglang,
    --mem-fraction 0.85 ...); None = its default. cuda_graph_memory: True = subtract the
    CUDA-graph estimate, False = ignore it (the CLI's subtract | ignore). compile_cache: "cold"
    (a first launch, the default) or "warm" (vLLM's torch.compile cache holds the configuration).
    """
    options = dict(locals())
    text = _kvsim.capacity_json(model, device,
                                **{name: options[name] for name in _CAPACITY_OPTIONS})
    return json.loads(text)


def layout(model, device="", *, dtype=None, block_size=None, locate=None):
    """One KV block in the ND and NZ layouts: `kvsim layout --json` as a dict.

    model, device: preset names or YAML files ("" = no device: ND, 16 tokens per block);
    dtype: the KV dtype (default fp16); block_size: tokens per block (default: the device's);
    locate: (token, head, dim), where that element lands (the CLI's --locate T,H,D).
    """
    if locate is not None:
        locate = tuple(int(part) for part in locate)
        if len(locate) != 3:
            raise Error("--locate expects TOKEN,HEAD,DIM")
    return json.loads(_kvsim.layout_json(model, device, dtype, block_size, locate))


def ppl(policies, *, budgets=None, checkpoint=None, tokenizer=None, text=None, kv_layout=None,
        kv_dtype=None, block_size=None, ctx=None, max_tokens=None, progress=None):
    """Perplexity of a text under KV cache policies, each against full attention:
    `kvsim ppl --json` as a dict ({"model": the checkpoint measured and its shape, "tokens": n,
    "results": [one dict per policy, full first]}).

    policies: specs as the CLI's --policy ("full", "window:W", "sink:S,W", "h2o:H,R", "int8",
    "int4:G,R"), a string or a list; budgets: cache budgets in tokens (each evicting policy
    once per budget). The other options are the CLI's (default: the shared kjv-tiny model and
    its eval text, "data:" paths under KVSIM_DATA_DIR). progress: called with the share done,
    in [0, 1]; Ctrl-C stops the measurement (KeyboardInterrupt); the GIL is released.
    """
    if isinstance(policies, str):
        policies = [policies]
    text_json = _kvsim.ppl_json(list(policies), list(budgets or []), checkpoint, tokenizer, text,
                                kv_layout, kv_dtype, block_size, ctx, max_tokens, progress)
    return json.loads(text_json)


def sweep(spec, *, jobs=None, out=None, progress=None):
    """Runs a sweep as `kvsim sweep SPEC --out DIR --jobs N`; returns its summary.csv as a
    DataFrame: one row per point (point_id, point_name, status, error, the grid and zip keys,
    the flattened metrics). A failing point is a row with status "error" and its message.

    spec: a sweep preset name, a YAML file, or a dict of the same fields; jobs: points run in
    parallel (default: every core); out: the output folder to keep (default: a temporary one);
    progress: called as progress(done, total) with point counts. Ctrl-C (KeyboardInterrupt)
    lets the points running finish and starts no other; their results stay in `out`, and
    `kvsim sweep SPEC --out DIR --resume` runs the rest. The GIL is released.
    """
    name, spec_yaml = _source(spec, "<sweep dict>")
    if out is not None:
        os.makedirs(out, exist_ok=True)
        _kvsim.sweep_run(name, spec_yaml, str(out), int(jobs or 0), progress)
        return _read_table(os.path.join(out, "summary.csv"))
    with tempfile.TemporaryDirectory(prefix="kvsim-sweep-") as out_dir:
        _kvsim.sweep_run(name, spec_yaml, out_dir, int(jobs or 0), progress)
        return _read_table(os.path.join(out_dir, "summary.csv"))


class Result:
    """One simulation: .summary (dict, `kvsim simulate --json`), .requests and .timeseries
    (pandas DataFrames of what requests.csv and timeseries.csv hold; dicts of numpy arrays
    without pandas; None when the scenario's output section turns the file off), .tables
    (every table by its file's stem: a cluster has replicas, tiers and transfers instead of
    timeseries). A lone engine's tables are built in memory (exactly the files' values; time_s
    is float), a cluster's read from the files it writes."""

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


def _source(value, dict_name):
    """(name or path, YAML text): a dict becomes YAML text (JSON, one key a line, so that an
    error's file:line:column points into it); a name or path is passed as it is."""
    if isinstance(value, dict):
        return dict_name, json.dumps(value, indent=1)
    return os.fspath(value), ""


def _column(values):
    """One CSV column as a numpy array: int64, else float64 (an empty cell is NaN), else str
    (the dtypes pandas.read_csv would infer)."""
    import numpy
    try:
        return numpy.array([int(v) for v in values], dtype=numpy.int64)
    except ValueError:
        pass
    try:
        return numpy.array([float(v) if v != "" else float("nan") for v in values])
    except ValueError:
        return numpy.array(values, dtype=str)


def _frame(columns):
    """{column: numpy array} as a pandas DataFrame, or as it is without pandas."""
    try:
        import pandas
    except ImportError:
        return columns
    return pandas.DataFrame(columns, copy=False)


def _read_table(path):
    """A CSV file as a pandas DataFrame, or without pandas as {column: numpy array}."""
    try:
        import pandas
    except ImportError:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        header, body = rows[0], rows[1:]
        return {name: _column([row[i] for row in body]) for i, name in enumerate(header)}
    return pandas.read_csv(path)


def simulate(scenario, set=None, *, trace=None, trace_format=None, skip_bad_rows=False,
             seed=None, deployment=None, progress=None):
    """Runs a scenario as `kvsim simulate` does; returns a Result.

    scenario: a preset name, a YAML file, or a dict of the same fields ({"model": "llama3-8b",
    "device": "a100-80g", "workload": {...}}; its relative paths resolve against the working
    directory; errors name "<scenario dict>:line:column" of the dict as JSON, one key a line).

    set: overrides, {"cache.block_size": 32} or ["cache.block_size=32"] (the CLI's --set);
    trace: a trace file replacing the workload; seed: the workload's seed; deployment: a file
    of `kvsim calibrate --from-log ... -o` whose model, device, TP, engine and measured memory
    replace the scenario's (the CLI's --deployment); progress: called
    with the share of the workload done, in [0, 1], while the run goes on (a share, not
    (done, total): a trace's request count is known only once it has been read through).
    Ctrl-C stops the run (KeyboardInterrupt); the GIL is released while it runs.
    """
    name, scenario_yaml = _source(scenario, "<scenario dict>")
    with tempfile.TemporaryDirectory(prefix="kvsim-") as out_dir:
        text, columns = _kvsim.simulate_run(name, scenario_yaml, _overrides(set), trace or "",
                                            trace_format or "", bool(skip_bad_rows), seed,
                                            deployment or "", out_dir, progress)
        if columns is not None:  # a lone engine: its tables, kept in memory
            tables = {stem: _frame(table) for stem, table in columns.items()}
        else:  # a cluster: the CSV files it wrote
            tables = {}
            for file_name in sorted(os.listdir(out_dir)):
                if file_name.endswith(".csv"):
                    tables[file_name[:-len(".csv")]] = _read_table(os.path.join(out_dir,
                                                                                file_name))
    return Result(json.loads(text), tables)
