# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
def get_dtype_size(dtype):
    return getattr(dtype, "itemsize", 2)


def nvfp4_kv_cache_full_dim(head_size):
    return head_size
