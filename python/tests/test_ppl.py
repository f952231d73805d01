"""kvsim.ppl() against `kvsim ppl --json` on the same inputs, its errors and its progress.
The tiny LLaMA model is shared data (../shared): the tests skip without it."""

import os
import pathlib

import pytest

import kvsim

SHORT = {"max_tokens": 192, "ctx": 64}


@pytest.fixture(autouse=True)
def needs_the_tiny_model():
    data = pathlib.Path(os.environ.get("KVSIM_DATA_DIR", "../shared"))
    if not (data / "models/kjv-tiny/model.bin").is_file():
        pytest.skip("the kjv-tiny model needs ../shared (set KVSIM_DATA_DIR)")


def test_ppl_equals_the_cli(cli_json):
    got = kvsim.ppl(["full", "sink:4,28", "int8"], kv_dtype="fp16", **SHORT)
    assert got == cli_json("ppl", "--policy", "full", "--policy", "sink:4,28", "--policy", "int8",
                           "--kv-dtype", "fp16", "--max-tokens", 192, "--ctx", 64)
    assert got["tokens"] == 192
    assert [r["policy"] for r in got["results"]][0] == "full"


def test_budgets_equal_the_cli(cli_json):
    got = kvsim.ppl("window:32", budgets=[16, 24], kv_layout="nz", **SHORT)
    assert got == cli_json("ppl", "--policy", "window:32", "--budgets", "16,24", "--kv-layout",
                           "nz", "--max-tokens", 192, "--ctx", 64)
    assert [r["budget_tokens"] for r in got["results"]] == [None, 16, 24]


def test_bad_policy_raises_the_cli_message(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.ppl("lru:9", **SHORT)
    assert str(raised.value) == cli_error("ppl", "--policy", "lru:9", "--max-tokens", 192,
                                          "--ctx", 64)


def test_missing_checkpoint_raises_the_cli_message(cli_error, tmp_path):
    missing = tmp_path / "model.bin"
    with pytest.raises(kvsim.Error) as raised:
        kvsim.ppl("full", checkpoint=str(missing))
    assert str(raised.value) == cli_error("ppl", "--policy", "full", "--checkpoint", missing)


def test_progress_and_an_exception_in_it():
    seen = []
    kvsim.ppl("full", progress=seen.append, **SHORT)
    assert seen and seen == sorted(seen) and 0 < seen[-1] <= 1

    def fail(share):
        raise RuntimeError("stop the measurement")

    with pytest.raises(RuntimeError, match="stop the measurement"):
        kvsim.ppl("full", progress=fail, **SHORT)


def test_ctrl_c_stops_a_measurement_and_leaves_no_thread(interrupted):
    code, out, stopped_s = interrupted('kvsim.ppl(["full", "sink:4,60", "h2o:16,16"])')
    assert code == 3, out
    assert stopped_s < 1.0, "took {:.2f} s to stop".format(stopped_s)
