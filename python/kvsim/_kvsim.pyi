# Type stubs of the extension _kvsim (python/src/module.cc); the package kvsim wraps it.
from typing import Callable, Optional

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
def simulate_json(scenario: str, overrides: list[str], trace: str, trace_format: str,
                  skip_bad_rows: bool, seed: Optional[int], out_dir: str,
                  progress: Optional[Callable[[float], None]]) -> str: ...
def presets() -> dict[str, list[str]]: ...
