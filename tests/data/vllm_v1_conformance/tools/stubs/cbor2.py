# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
def dumps(obj, canonical=False):
    raise NotImplementedError("cbor2 is stubbed: use the sha256 (pickle) hash, not sha256_cbor")
