# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
# The real module needs msgspec and zmq; the pool only builds these events when
# enable_kv_cache_events=True, which the recorder never sets.
from dataclasses import dataclass, field
from typing import Any

MEDIUM_GPU = "GPU"


class KVCacheEvent:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        for k, v in kwargs.items():
            setattr(self, k, v)


class BlockStored(KVCacheEvent):
    group_idx = None


class BlockRemoved(KVCacheEvent):
    pass


class AllBlocksCleared(KVCacheEvent):
    pass
