# Type stubs of the extension _kvsim (python/src/module.cc); the package kvsim wraps it.
from typing import Callable, Optional

class Error(ValueError):
    """Bad input: the message is the CLI's (file:line:column for YAML; valid names listed)."""

def capacity_json(model: str, device: str, dtype: Optional[str], weight_dtype: Optional[str],
                  batch: Optional[int], seq_len: Optional[int], mem_fraction: Optional[float],
                  block_size: Optional[int], tp: Optional[int], kv_budget_bytes: Optional[int],
                  reserve_bytes: Optional[int], quant_group: Optional[int],
                  max_num_batched_tokens: Optional[int]) -> str: ...
def simulate_json(scenario: str, overrides: list[str], trace: str, trace_format: str,
                  skip_bad_rows: bool, seed: Optional[int], out_dir: str,
                  progress: Optional[Callable[[float], None]]) -> str: ...
def presets() -> dict[str, list[str]]: ...
