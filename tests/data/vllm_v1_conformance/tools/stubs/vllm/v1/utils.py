# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
from collections.abc import Sequence


class ConstantList(Sequence):
    """Read-only live view of a list (as vLLM's own ConstantList)."""

    def __init__(self, x):
        self._x = x

    def __len__(self):
        return len(self._x)

    def __getitem__(self, i):
        return self._x[i]

    def __iter__(self):
        return iter(self._x)

    def __repr__(self):
        return repr(self._x)


def tensor_data(t):
    return t
