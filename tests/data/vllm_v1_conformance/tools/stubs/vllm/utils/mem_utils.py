# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
def format_gib(b):
    return f'{b / (1 << 30):.2f}'
