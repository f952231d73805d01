# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
class SpecDecodingStats:
    pass
