"""kvsim.presets() against `kvsim presets --json`: the same names of every kind."""

import kvsim


def test_presets_are_the_cli_names(cli_json):
    expected = cli_json("presets")
    got = kvsim.presets()
    assert sorted(got) == sorted(expected)
    for kind, entries in expected.items():
        assert got[kind] == [entry["name"] for entry in entries]
    assert "default" in got["scenarios"] and "llama3-8b" in got["models"]
