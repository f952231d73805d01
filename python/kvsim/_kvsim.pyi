# Type stubs of the extension _kvsim (python/src/module.cc, runs.cc); the package kvsim wraps it.
from typing import Any, Callable, Optional

class Error(ValueError):
    """Bad input: the message is the CLI's (file:line:column for YAML; valid names listed)."""

def capacity_json(model: str, device: str, *, dtype: Optional[str],
                  weight_dtype: Optional[str], batch: Optional[int], seq_len: Optional[int],
                  block_size: Optional[int], tp: Optional[int], kv_budget_bytes: Optional[int],
                  quant_group: Optional[int], engine: Optional[str],
                  engine_version: Optional[str], mem_fraction: Optional[float],
                  max_model_len: Optional[int], max_num_batched_tokens: Optional[int],
                  max_num_seqs: Optional[int], cuda_graph_memory: Optional[bool],
                  enforce_eager: Optional[bool], entry_point: Optional[str],
                  device_used_bytes: Optional[int]) -> str: ...
def layout_json(model: str, device: str, dtype: Optional[str], block_size: Optional[int],
                locate: Optional[tuple[int, int, int]]) -> str: ...
# (summary JSON, {"requests": {column: array}, "timeseries": ...}), or (summary JSON, None) for
# a cluster, whose CSV files are in out_dir.
def simulate_run(scenario: str, scenario_yaml: str, overrides: list[str], trace: str,
                 trace_format: str, skip_bad_rows: bool, seed: Optional[int], deployment: str,
                 out_dir: str, progress: Optional[Callable[[float], None]]
                 ) -> tuple[str, Optional[dict[str, dict[str, Any]]]]: ...
def ppl_json(policies: list[str], budgets: list[int], checkpoint: Optional[str],
             tokenizer: Optional[str], text: Optional[str], kv_layout: Optional[str],
             kv_dtype: Optional[str], block_size: Optional[int], ctx: Optional[int],
             max_tokens: Optional[int], progress: Optional[Callable[[float], None]]) -> str: ...
def sweep_run(spec: str, spec_yaml: str, out_dir: str, jobs: int,
              progress: Optional[Callable[[int, int], None]]) -> dict[str, int]: ...
def presets() -> dict[str, list[str]]: ...
# {"requests": [column names], "timeseries": [...]}: simulate_run's tables' columns, in order.
def table_columns() -> dict[str, list[str]]: ...
