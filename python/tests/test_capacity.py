"""kvsim.capacity() against `kvsim capacity --json` on the same inputs, and its errors."""

import pathlib

import pytest

import kvsim

CASES = [
    ("llama3-8b", "a100-80g", {}),
    ("llama3-70b", "h100-sxm", {"dtype": "fp8", "tp": 4, "batch": 8, "seq_len": 4096}),
    ("deepseek-v3", "h200", {"tp": 8, "block_size": 64}),
    ("gemma-2-9b", "l40s", {"mem_fraction": 0.8, "max_num_batched_tokens": 4096}),
    ("llama-2-7b", "ascend-910b3", {"dtype": "int8", "quant_group": 64}),
    ("mistral-7b", "", {"dtype": "int4", "seq_len": 1000}),
    ("llama3-8b", "", {"kv_budget_bytes": 10 << 30, "weight_dtype": "fp8"}),
    ("llama3-8b", "h100-sxm", {"engine": "sglang", "mem_fraction": 0.85}),
    ("qwen2.5-14b", "a100-80g", {"enforce_eager": True, "max_num_seqs": 64,
                                 "max_model_len": 8192, "entry_point": "llm"}),
    ("llama3-8b", "a100-40g", {"cuda_graph_memory": True, "device_used_bytes": 1 << 30}),
    ("llama3-8b", "a100-40g", {"cuda_graph_memory": False, "engine": "vllm-v0"}),
    ("llama3-8b", "l40s", {"compile_cache": "warm", "engine_version": "0.28.0"}),
]


def cli_args(model, device, options):
    args = ["capacity", "--model", model]
    if device:
        args += ["--device", device]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if key == "cuda_graph_memory":
            args += [flag, "subtract" if value else "ignore"]
        elif value is True:
            args += [flag]
        else:
            args += [flag, value]
    return args


@pytest.mark.parametrize("model,device,options", CASES)
def test_capacity_equals_the_cli(cli_json, model, device, options):
    got = kvsim.capacity(model=model, device=device, **options)
    assert got == cli_json(*cli_args(model, device, options))
    assert got["model"] == model


def test_several_devices_give_the_cli_list(cli_json):
    got = kvsim.capacity("qwen2.5-14b", "a100-80g,h100-sxm,mi300x", dtype="bf16")
    assert isinstance(got, list) and len(got) == 3
    assert got == cli_json(*cli_args("qwen2.5-14b", "a100-80g,h100-sxm,mi300x",
                                     {"dtype": "bf16"}))


def test_a_bf16_checkpoint_runs_its_weights_bf16(cli_json):
    # A config.json's torch_dtype is the weights' dtype unless weight_dtype says otherwise.
    hf = pathlib.Path(__file__).resolve().parents[2] / "presets/hf/meta-llama__Llama-3.1-8B.json"
    got = kvsim.capacity(str(hf), "h100-sxm")
    assert got["weight_dtype"] == "bf16"
    assert got == cli_json("capacity", "--model", hf, "--device", "h100-sxm")
    fp16 = kvsim.capacity(str(hf), "h100-sxm", weight_dtype="fp16")
    assert fp16["weight_dtype"] == "fp16"
    assert fp16["kv_budget_bytes"] == got["kv_budget_bytes"]  # bf16 is 2 bytes like fp16


def test_unknown_model_lists_the_presets(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.capacity("llama-9000", "a100-80g")
    message = str(raised.value)
    assert message == cli_error("capacity", "--model", "llama-9000", "--device", "a100-80g")
    for name in kvsim.presets()["models"]:
        assert name in message


def test_bad_dtype_raises_the_cli_message(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.capacity("llama3-8b", "a100-80g", dtype="fp7")
    assert str(raised.value) == cli_error("capacity", "--model", "llama3-8b", "--device",
                                          "a100-80g", "--dtype", "fp7")


def test_bad_tp_raises_the_cli_message(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.capacity("llama3-8b", "a100-80g", tp=3)
    assert "tensor parallelism 3 (--tp, num_devices) must divide the 32 attention heads" in str(
        raised.value)
    assert str(raised.value) == cli_error("capacity", "--model", "llama3-8b", "--device",
                                          "a100-80g", "--tp", "3")


def test_unknown_engine_lists_the_engines(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.capacity("llama3-8b", "a100-80g", engine="trt-llm")
    assert str(raised.value) == cli_error("capacity", "--model", "llama3-8b", "--device",
                                          "a100-80g", "--engine", "trt-llm")
    assert "sglang" in str(raised.value)


def test_wrong_python_type_is_a_type_error():
    with pytest.raises(TypeError):
        kvsim.capacity("llama3-8b", "a100-80g", batch="eight")


def test_error_is_a_value_error():
    assert issubclass(kvsim.Error, ValueError)
    with pytest.raises(ValueError):
        kvsim.capacity("llama3-8b", "no-such-device")
