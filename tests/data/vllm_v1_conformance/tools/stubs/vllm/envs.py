# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES = False
VLLM_COMPUTE_NANS_IN_LOGITS = False
