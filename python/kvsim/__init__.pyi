# Type stubs of the package kvsim (python/kvsim/__init__.py holds the docstrings).
import os
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from ._kvsim import Error as Error

Scalar = Union[str, int, float, bool, None]
Source = Union[str, os.PathLike[str], Mapping[str, Any]]
# A pandas DataFrame, or without pandas {column: numpy array}.
Table = Any

def presets() -> dict[str, list[str]]: ...
def capacity(model: str, device: str = ..., *, dtype: Optional[str] = ...,
             weight_dtype: Optional[str] = ..., batch: Optional[int] = ...,
             seq_len: Optional[int] = ..., block_size: Optional[int] = ...,
             tp: Optional[int] = ..., kv_budget_bytes: Optional[int] = ...,
             quant_group: Optional[int] = ..., engine: Optional[str] = ...,
             engine_version: Optional[str] = ..., mem_fraction: Optional[float] = ...,
             max_model_len: Optional[int] = ..., max_num_batched_tokens: Optional[int] = ...,
             max_num_seqs: Optional[int] = ..., cuda_graph_memory: Optional[bool] = ...,
             enforce_eager: Optional[bool] = ..., entry_point: Optional[str] = ...,
             device_used_bytes: Optional[int] = ...) -> Union[dict[str, Any],
                                                              list[dict[str, Any]]]: ...
def layout(model: str, device: str = ..., *, dtype: Optional[str] = ...,
           block_size: Optional[int] = ...,
           locate: Optional[Sequence[int]] = ...) -> dict[str, Any]: ...
def ppl(policies: Union[str, Sequence[str]], *, budgets: Optional[Sequence[int]] = ...,
        checkpoint: Optional[str] = ..., tokenizer: Optional[str] = ...,
        text: Optional[str] = ..., kv_layout: Optional[str] = ..., kv_dtype: Optional[str] = ...,
        block_size: Optional[int] = ..., ctx: Optional[int] = ..., max_tokens: Optional[int] = ...,
        progress: Optional[Callable[[float], None]] = ...) -> dict[str, Any]: ...
def sweep(spec: Source, *, jobs: Optional[int] = ..., out: Optional[str] = ...,
          progress: Optional[Callable[[int, int], None]] = ...) -> Table: ...

class Result:
    summary: dict[str, Any]
    tables: dict[str, Table]
    @property
    def requests(self) -> Optional[Table]: ...
    @property
    def timeseries(self) -> Optional[Table]: ...

def simulate(scenario: Source, set: Union[Mapping[str, Scalar], Sequence[str], None] = ..., *,
             trace: Optional[str] = ..., trace_format: Optional[str] = ...,
             skip_bad_rows: bool = ..., seed: Optional[int] = ...,
             deployment: Optional[str] = ...,
             progress: Optional[Callable[[float], None]] = ...) -> Result: ...
