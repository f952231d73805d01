"""kvsim.simulate() against `kvsim simulate --json` / --out on the same inputs, its errors,
progress and interruption."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pandas
import pytest

import kvsim

WALL_FIELDS = ("wall_s", "events_per_s", "requests_per_wall_s")
SMALL = {"workload.synthetic.num_requests": 300}


def without_wall(summary):
    return {key: value for key, value in summary.items() if key not in WALL_FIELDS}


def read_exact(path):
    return pandas.read_csv(path, float_precision="round_trip")


def set_args(overrides):
    args = []
    for key, value in overrides.items():
        args += ["--set", "{}={}".format(key, value)]
    return args


def test_default_summary_equals_the_cli(cli_json):
    result = kvsim.simulate("default")
    expected = cli_json("simulate", "default")
    assert without_wall(result.summary) == without_wall(expected)
    assert result.summary["requests_completed"] == 3000
    for field in WALL_FIELDS:
        assert result.summary[field] > 0


def test_tables_equal_the_cli_files(cli, tmp_path):
    overrides = {"cache.block_size": 32, **SMALL}
    result = kvsim.simulate("default", set=overrides, seed=7)
    code, _, err = cli("simulate", "default", *set_args(overrides), "--seed", 7,
                       "--out", tmp_path)
    assert code == 0, err
    assert sorted(result.tables) == ["requests", "timeseries"]
    # The module's tables are the writers' doubles, kept in memory; the files' shortest
    # round-trip decimals read back to exactly them. Only a dtype differs: time_s is float, the
    # file's whole seconds ("1", "2") read back as integers.
    pandas.testing.assert_frame_equal(result.requests, read_exact(tmp_path / "requests.csv"),
                                      check_exact=True)
    pandas.testing.assert_frame_equal(result.timeseries,
                                      read_exact(tmp_path / "timeseries.csv"),
                                      check_exact=True, check_dtype=False)
    assert result.timeseries["time_s"].dtype == "float64"
    assert len(result.requests) == 300
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert without_wall(result.summary) == without_wall(summary)
    assert result.summary["block_size"] == 32


def test_table_columns_are_the_csv_headers(cli, tmp_path):
    # One definition of the columns (simulator/output/table_columns.h): the module's tables,
    # their names as the module lists them and the CLI's CSV headers are the same, in order.
    result = kvsim.simulate("default", set=SMALL, seed=7)
    code, _, err = cli("simulate", "default", *set_args(SMALL), "--seed", 7, "--out", tmp_path)
    assert code == 0, err
    names = kvsim._kvsim.table_columns()
    assert sorted(names) == sorted(result.tables)
    for stem, table in result.tables.items():
        header = (tmp_path / (stem + ".csv")).read_text().split("\n", 1)[0].split(",")
        assert list(table.columns) == header
        assert names[stem] == header


def test_overrides_as_a_list_and_a_yaml_path(cli_json, tmp_path):
    scenario = tmp_path / "small.yaml"
    source = pathlib.Path(__file__).resolve().parents[2] / "presets/scenarios/default.yaml"
    text = source.read_text().replace("num_requests: 3000", "num_requests: 200")
    scenario.write_text(text.replace("name: default", "name: small"))
    result = kvsim.simulate(str(scenario), set=["cache.prefix_caching=false"])
    expected = cli_json("simulate", scenario, "--set", "cache.prefix_caching=false")
    assert without_wall(result.summary) == without_wall(expected)
    assert result.summary["scenario"] == "small"
    assert result.summary["requests_completed"] == 200
    assert result.summary["prefix_cache_hit_rate"] == 0


def test_unknown_preset_lists_the_valid_names(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.simulate("no-such-scenario")
    message = str(raised.value)
    assert message == cli_error("simulate", "no-such-scenario")
    for name in kvsim.presets()["scenarios"]:
        assert name in message


def test_unknown_override_key_raises_the_cli_message(cli_error):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.simulate("default", set={"cache.block_sise": 32})
    assert str(raised.value) == cli_error("simulate", "default", "--set", "cache.block_sise=32")
    assert "block_sise" in str(raised.value)


def test_bad_yaml_names_file_line_and_column(cli_error, tmp_path):
    scenario = tmp_path / "bad.yaml"
    scenario.write_text("name: bad\nmodel: llama3-8b\ncache:\n  block_size: [1\n")
    with pytest.raises(kvsim.Error) as raised:
        kvsim.simulate(str(scenario))
    message = str(raised.value)
    assert message == cli_error("simulate", scenario)
    assert message.startswith(str(scenario) + ":")


def test_missing_trace_raises(cli_error, tmp_path):
    trace = tmp_path / "absent.csv"
    with pytest.raises(kvsim.Error) as raised:
        kvsim.simulate("default", trace=str(trace))
    assert str(raised.value) == cli_error("simulate", "default", "--trace", trace)


def test_progress_is_called_with_the_share_done():
    seen = []
    kvsim.simulate("default", set=SMALL, progress=seen.append)
    assert seen, "progress was never called"
    assert all(0 <= share <= 1 for share in seen)
    assert seen == sorted(seen)
    assert seen[-1] == 1


def test_an_exception_in_progress_stops_the_run():
    calls = []

    def progress(share):
        calls.append(share)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        kvsim.simulate("default", progress=progress)
    assert len(calls) == 1


def test_ctrl_c_stops_a_run_and_leaves_no_thread(interrupted):
    code, out, stopped_s = interrupted(
        'kvsim.simulate("default", set={"workload.synthetic.num_requests": 10000000})')
    assert code == 3, out
    assert "threads 1" in out
    assert stopped_s < 1.0, "took {:.2f} s to stop".format(stopped_s)


@pytest.mark.parametrize("overrides", [{"cache.block_size": "abc"}, {"cache.mem_fraction": 2},
                                       {"cache.eviction": "no-such-policy"}])
def test_a_bad_override_value_raises_the_cli_message(cli_error, overrides):
    with pytest.raises(kvsim.Error) as raised:
        kvsim.simulate("default", set=overrides)
    assert str(raised.value) == cli_error("simulate", "default", *set_args(overrides))


def test_a_cluster_run_gives_the_cli_files(cli, tmp_path):
    if not pathlib.Path(os.environ.get("KVSIM_DATA_DIR", "../shared"), "traces").is_dir():
        pytest.skip("the Mooncake trace needs ../shared (set KVSIM_DATA_DIR)")
    overrides = {"workload.max_requests": 300}
    result = kvsim.simulate("mooncake-disaggregated", set=overrides)
    code, out, err = cli("simulate", "mooncake-disaggregated", *set_args(overrides), "--out",
                         tmp_path, "--json")
    assert code == 0, err
    assert result.timeseries is None
    files = sorted(p.stem for p in tmp_path.glob("*.csv"))
    assert sorted(result.tables) == files and "replicas" in files
    for name in files:
        pandas.testing.assert_frame_equal(result.tables[name],
                                          pandas.read_csv(tmp_path / (name + ".csv")),
                                          check_exact=True)
    assert without_wall(result.summary) == without_wall(json.loads(out))


SMALL_SCENARIO = {
    "name": "from-a-dict",
    "model": "llama3-8b",
    "device": "a100-80g",
    "seed": 3,
    "cache": {"block_size": 32, "eviction": "lru"},
    "workload": {"synthetic": {"num_requests": 200, "rate": 5,
                               "prompt_tokens": {"dist": "fixed", "value": 700},
                               "output_tokens": {"dist": "fixed", "value": 40}}},
}


def test_a_dict_scenario_equals_the_cli_on_the_same_file(cli_json, tmp_path):
    scenario = tmp_path / "from-a-dict.yaml"
    scenario.write_text(json.dumps(SMALL_SCENARIO, indent=1))  # JSON is YAML
    result = kvsim.simulate(SMALL_SCENARIO, set={"cache.prefix_caching": False})
    expected = cli_json("simulate", scenario, "--set", "cache.prefix_caching=false")
    assert without_wall(result.summary) == without_wall(expected)
    assert result.summary["scenario"] == "from-a-dict"
    assert len(result.requests) == 200


def test_a_bad_dict_names_its_line_and_column(cli_error, tmp_path):
    bad = dict(SMALL_SCENARIO, cache={"block_size": 32, "evictoin": "lru"})
    scenario = tmp_path / "bad.yaml"
    scenario.write_text(json.dumps(bad, indent=1))
    with pytest.raises(kvsim.Error) as raised:
        kvsim.simulate(bad)
    message = str(raised.value)
    assert message.startswith("<scenario dict>:8:")
    assert "evictoin" in message
    assert message == cli_error("simulate", scenario).replace(str(scenario), "<scenario dict>")



# Without pandas the tables are {column: numpy array}; the child hides pandas from the import.
NO_PANDAS = textwrap.dedent("""
    import json, sys
    sys.modules["pandas"] = None
    import numpy, kvsim
    r = kvsim.simulate("default", set={"workload.synthetic.num_requests": 300}, seed=7)
    assert all(isinstance(c, numpy.ndarray) for c in r.requests.values())
    print(json.dumps({name: {col: [v.item() if hasattr(v, "item") else v for v in values]
                             for col, values in table.items()}
                      for name, table in r.tables.items()}))
""")


def test_without_pandas_tables_are_numpy_arrays(tmp_path):
    done = subprocess.run([sys.executable, "-c", NO_PANDAS], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)
    expected = kvsim.simulate("default", set={"workload.synthetic.num_requests": 300}, seed=7)
    assert sorted(tables) == sorted(expected.tables)
    for name, frame in expected.tables.items():
        assert list(tables[name]) == list(frame.columns)
        for column in frame.columns:
            got = pandas.Series(tables[name][column], name=column, dtype=frame[column].dtype)
            pandas.testing.assert_series_equal(got, frame[column])


def test_speculative_decoding_reports_its_drafts_and_is_absent_without_the_section():
    # The EAGLE-3 preset: one i.i.d. rate p = 0.743 at k = 3, so a verifying step yields
    # 1 + p + p^2 + p^3 = 2.705 tokens on average.
    result = kvsim.simulate("eagle3-llama3.1-8b", set=SMALL)
    spec = result.summary["speculative"]
    assert spec["tokens_per_verify_step"] == pytest.approx(2.705, rel=0.02)
    assert 0 < spec["accepted_draft_tokens"] < spec["draft_tokens"]
    plain = kvsim.simulate("eagle3-llama3.1-8b", set={**SMALL, "speculative": "null"})
    assert "speculative" not in plain.summary
    assert plain.summary["tpot_s"]["mean"] > 1.5 * result.summary["tpot_s"]["mean"]
