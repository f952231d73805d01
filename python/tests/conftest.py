"""Fixtures of the kvsim Python tests: the module under test and the CLI built with it.

Run from the checkout (see docs/python.md):
    PYTHONPATH=<build>/python /usr/bin/python3 -m pytest -q python/tests
The CLI is <build>/cli/kvsim next to the module (KVSIM_BIN overrides it); the tests compare
the module's results with the CLI's on the same inputs.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

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


# Threads are counted twice: Python's, and the process's native ones (/proc/self/task), so a
# thread left behind by the C++ side would show too.
CHILD = textwrap.dedent("""
    import os, sys, threading, time
    import kvsim
    native_before = len(os.listdir("/proc/self/task"))
    print("ready", flush=True)
    start = time.monotonic()
    try:
        {call}
    except KeyboardInterrupt:
        native = len(os.listdir("/proc/self/task"))
        print("interrupted after", time.monotonic() - start, "threads", threading.active_count(),
              "native", native, "of", native_before, flush=True)
        sys.exit(3 if threading.active_count() == 1 and native == native_before else 4)
    sys.exit(5)
""")


@pytest.fixture
def interrupted():
    """Runs `call` (a run that takes minutes) in a child, sends it SIGINT after 1.5 s; returns
    (exit code: 3 = KeyboardInterrupt with no thread left, the child's output, seconds from
    the signal to the child's exit)."""

    def run(call):
        child = subprocess.Popen([sys.executable, "-c", CHILD.format(call=call)],
                                 stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        assert child.stdout.readline() == "ready\n"
        time.sleep(1.5)  # inside the run by now
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=30)
        return child.returncode, out, time.monotonic() - sent

    return run
