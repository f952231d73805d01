"""kvsim.layout() against `kvsim layout --json` on the same inputs, and its errors."""

import pytest

import kvsim

CASES = [
    ("llama3-8b", "", {}),
    ("llama-2-7b", "ascend-910b3", {"locate": (100, 3, 17)}),
    ("qwen2.5-14b", "h100-sxm", {"dtype": "fp8", "block_size": 32, "locate": (5, 0, 0)}),
    ("gemma-2-9b", "ascend-910b3", {"dtype": "int8"}),
]


def cli_args(model, device, options):
    args = ["layout", "--model", model]
    if device:
        args += ["--device", device]
    for key, value in options.items():
        if key == "locate":
            value = ",".join(map(str, value))
        args += ["--" + key.replace("_", "-"), value]
    return args


@pytest.mark.parametrize("model,device,options", CASES)
def test_layout_equals_the_cli(cli_json, model, device, options):
    got = kvsim.layout(model, device, **options)
    assert got == cli_json(*cli_args(model, device, options))
    assert ("nz_offset" in got) == ("locate" in options)


def test_unknown_device_lists_the_presets(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.layout("llama3-8b", "tpu-v9")
    assert str(raised.value) == cli_error("layout", "--model", "llama3-8b", "--device", "tpu-v9")
    assert "ascend-910b3" in str(raised.value)


def test_bad_dtype_raises_the_cli_message(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.layout("llama3-8b", dtype="fp7")
    assert str(raised.value) == cli_error("layout", "--model", "llama3-8b", "--dtype", "fp7")


def test_an_element_outside_the_block_raises_the_cli_message(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.layout("llama3-8b", locate=(0, 8, 0))
    assert str(raised.value) == cli_error("layout", "--model", "llama3-8b", "--locate", "0,8,0")
    assert "head must be < 8" in str(raised.value)


def test_locate_needs_three_numbers(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.layout("llama3-8b", locate=(1, 2))
    assert str(raised.value) == cli_error("layout", "--model", "llama3-8b", "--locate", "1,2")
