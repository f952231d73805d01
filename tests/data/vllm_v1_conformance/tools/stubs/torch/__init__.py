# kvsim conformance stub (our own code, not vLLM's): minimal stand-in so that vLLM's
# v1 KV cache manager imports without torch / the rest of vLLM.
class dtype:
    def __init__(self, name, itemsize):
        self.name, self.itemsize = name, itemsize

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", 4)
float16 = dtype("float16", 2)
bfloat16 = dtype("bfloat16", 2)
uint8 = dtype("uint8", 1)
int8 = dtype("int8", 1)
float8_e4m3fn = dtype("float8_e4m3fn", 1)


class Tensor:
    pass
