"""kvsim.sweep() against `kvsim sweep --out` (its summary.csv) on the same sweep, failing points
as rows, a sweep given as a dict, progress(done, total), and its errors."""

import json

import pandas
import pytest

import kvsim

SWEEP = {
    "description": "two block sizes and a policy that does not exist",
    "base": "default",
    "set": {"workload.synthetic.num_requests": 60},
    "grid": {"cache.block_size": [16, 32], "cache.eviction": ["lru", "no-such-policy"]},
}


def without_wall(frame):
    """The run's own wall-clock columns differ from run to run; everything else must not."""
    return frame[[c for c in frame.columns if "wall" not in c and "events_per_s" not in c]]


def cli_summary(cli, sweep_file, out_dir):
    code, _, err = cli("sweep", sweep_file, "--out", out_dir, "--jobs", 2)
    assert code == 0, err
    return pandas.read_csv(out_dir / "summary.csv")


def test_a_dict_sweep_equals_the_cli_on_the_same_file(cli, tmp_path):
    sweep_file = tmp_path / "sweep.yaml"
    sweep_file.write_text(json.dumps(SWEEP, indent=1))  # JSON is YAML; the text kvsim parses
    done = []
    got = kvsim.sweep(SWEEP, jobs=2, progress=lambda d, t: done.append((d, t)))
    expected = cli_summary(cli, sweep_file, tmp_path / "cli")
    # A point's error names where its value is: the dict's line:column, or the file's.
    expected["error"] = expected["error"].str.replace(str(sweep_file), "<sweep dict>", regex=False)
    pandas.testing.assert_frame_equal(without_wall(got), without_wall(expected))
    assert len(got) == 4
    assert list(got["status"]) == ["ok", "error", "ok", "error"]
    assert got["error"][1].startswith("<sweep dict>:")
    assert "unknown eviction policy 'no-such-policy'" in got["error"][1]
    assert done[-1] == (4, 4) and all(total == 4 for _, total in done)


def test_a_sweep_file_and_its_output_folder(cli, tmp_path):
    sweep_file = tmp_path / "blocks.yaml"
    spec = dict(SWEEP, grid={"cache.block_size": [16, 64]})
    sweep_file.write_text(json.dumps(spec))
    got = kvsim.sweep(str(sweep_file), jobs=1, out=str(tmp_path / "mine"))
    assert (tmp_path / "mine" / "summary.csv").is_file()
    assert len(list((tmp_path / "mine" / "points").iterdir())) == 2
    expected = cli_summary(cli, sweep_file, tmp_path / "cli")
    pandas.testing.assert_frame_equal(without_wall(got), without_wall(expected))


def test_unknown_sweep_lists_the_presets(cli_error, tmp_path):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.sweep("no-such-sweep")
    assert str(raised.value) == cli_error("sweep", "no-such-sweep", "--out", tmp_path / "x")
    for name in kvsim.presets()["sweeps"]:
        assert name in str(raised.value)


def test_a_dict_without_base_names_its_line():
    with pytest.raises(kvsim.Error) as raised:
        kvsim.sweep({"grid": {"cache.block_size": [16]}})
    assert str(raised.value).startswith("<sweep dict>:1:1: missing required field 'base'")


def test_an_exception_in_progress_is_raised():
    def fail(done, total):
        raise RuntimeError("no progress wanted")

    with pytest.raises(RuntimeError, match="no progress wanted"):
        kvsim.sweep(dict(SWEEP, grid={"cache.block_size": [16]}), jobs=1, progress=fail)


def test_ctrl_c_stops_a_sweep_after_its_running_point(interrupted, tmp_path):
    many = {"base": "default", "set": {"workload.synthetic.num_requests": 1000},
            "grid": {"seed": list(range(1000))}}
    code, out, stopped_s = interrupted("kvsim.sweep({!r}, jobs=2, out={!r})".format(
        many, str(tmp_path)))
    assert code == 3, out
    assert stopped_s < 1.0, "took {:.2f} s to stop".format(stopped_s)
    finished = len(list((tmp_path / "points").iterdir()))
    assert 0 < finished < 1000
    assert len(pandas.read_csv(tmp_path / "summary.csv")) == finished
