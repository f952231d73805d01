# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
import enum


class MambaAttentionBackendEnum(enum.Enum):
    MAMBA = "mamba"
    MAMBA1 = "mamba1"
    MAMBA2 = "mamba2"
