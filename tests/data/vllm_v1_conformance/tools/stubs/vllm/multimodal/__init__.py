# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
import os as _os
_stub_dir = _os.path.dirname(_os.path.abspath(__file__))
_root, _, _rel = _stub_dir.rpartition(_os.sep + "stubs" + _os.sep)
_src = _os.path.join(_root, "vllm_src", _rel)
if _os.path.isdir(_src):
    __path__.append(_src)  # the real vLLM modules of this package (vllm_src/)
