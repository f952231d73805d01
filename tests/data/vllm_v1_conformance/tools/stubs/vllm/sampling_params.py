# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
class SamplingParams:
    def __init__(self, max_tokens=1 << 20):
        self.max_tokens = max_tokens
        self.extra_args = None
        self.structured_outputs = None
        self.prompt_logprobs = None
        self.skip_reading_prefix_cache = None
