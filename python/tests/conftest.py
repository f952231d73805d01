"""Fixtures of the kvsim Python tests: the module under test and the CLI built with it.

Run from the checkout (see docs/python.md):
    PYTHONPATH=<build>/python /usr/bin/python3 -m pytest -q python/tests
The CLI is <build>/cli/kvsim next to the module (KVSIM_BIN overrides it); the tests compare
the module's results with the CLI's on the same inputs.
"""

import json
import os
import pathlib
import subprocess

import pytest

import kvsim


@pytest.fixture(scope="session")
def kvsim_bin():
    default = pathlib.Path(kvsim.__file__).resolve().parents[2] / "cli" / "kvsim"
    path = pathlib.Path(os.environ.get("KVSIM_BIN", default))
    if not path.is_file():
        pytest.skip("no kvsim CLI at {} (build the kvsim target or set KVSIM_BIN)".format(path))
    return path


@pytest.fixture(scope="session")
def cli(kvsim_bin):
    """Runs the CLI; returns (exit code, stdout, stderr)."""

    def run(*args):
        done = subprocess.run([str(kvsim_bin), *map(str, args)], capture_output=True, text=True,
                              timeout=600)
        return done.returncode, done.stdout, done.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """Runs the CLI with --json; returns the parsed output (the run must succeed)."""

    def run(*args):
        code, out, err = cli(*args, "--json")
        assert code == 0, err
        return json.loads(out)

    return run


@pytest.fixture(scope="session")
def cli_error(cli):
    """Runs the CLI on bad input; returns its message (stderr less the "kvsim: " prefix)."""

    def run(*args):
        code, _, err = cli(*args)
        assert code == 2, err
        assert err.startswith("kvsim: "), err
        return err[len("kvsim: "):].rstrip("\n")

    return run
