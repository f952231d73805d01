"""examples/capacity_planning.ipynb runs from top to bottom (jupyter nbconvert --execute) with
this build's module, and draws its plots. Skipped without Debian's jupyter-nbconvert,
python3-ipykernel and python3-matplotlib (scripts/setup installs them)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import kvsim

NOTEBOOK = pathlib.Path(__file__).resolve().parents[2] / "examples" / "capacity_planning.ipynb"


def missing_tools():
    if shutil.which("jupyter-nbconvert") is None:
        return "jupyter-nbconvert"
    for module in ("ipykernel", "matplotlib"):
        done = subprocess.run([sys.executable, "-c", "import " + module], capture_output=True)
        if done.returncode != 0:
            return module
    return None


def outputs(notebook):
    for cell in notebook["cells"]:
        yield from cell.get("outputs", [])


def test_the_notebook_runs_and_draws_its_plots(tmp_path):
    missing = missing_tools()
    if missing:
        pytest.skip("no {} (apt-get install jupyter-nbconvert python3-ipykernel "
                    "python3-matplotlib)".format(missing))
    # The kernel runs in the notebook's folder: give it this module's folder as an absolute path.
    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1", MPLBACKEND="Agg",
               PYTHONPATH=str(pathlib.Path(kvsim.__file__).resolve().parents[1]))
    done = subprocess.run(["jupyter-nbconvert", "--to", "notebook", "--execute",
                           "--ExecutePreprocessor.kernel_name=python3",
                           "--ExecutePreprocessor.timeout=300", "--output-dir", str(tmp_path),
                           str(NOTEBOOK)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    executed = json.loads((tmp_path / NOTEBOOK.name).read_text())
    kinds = [o["output_type"] for o in outputs(executed)]
    assert "error" not in kinds
    images = [o for o in outputs(executed) if "image/png" in o.get("data", {})]
    assert len(images) == 2
    committed = json.loads(NOTEBOOK.read_text())
    assert len([o for o in outputs(committed) if "image/png" in o.get("data", {})]) == 2, \
        "commit the notebook executed (jupyter nbconvert --execute --inplace)"
