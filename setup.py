"""`pip install .`: setuptools drives CMake to build the extension kvsim._kvsim (python/) and
installs it with the package python/kvsim. Offline with Debian's packages only (docs/python.md):

    /usr/bin/python3 -m venv --system-site-packages venv
    venv/bin/pip install --no-build-isolation --no-index .

cmake, a C++20 compiler, pybind11-dev and the libraries of scripts/setup come from apt, so they
are not build requirements here (pip would look for them on PyPI). KVSIM_BUILD_DIR=DIR builds
in (and reuses) an existing build directory instead of a fresh Release one; CMAKE_ARGS adds
configure options (e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache).
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])  # CMake builds it, not setuptools


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        build_dir = pathlib.Path(os.environ.get("KVSIM_BUILD_DIR") or
                                 pathlib.Path(self.build_temp) / "kvsim").resolve()
        if not (build_dir / "CMakeCache.txt").is_file():
            # Built for the interpreter pip runs (a venv's python, whose base is
            # /usr/bin/python3), not the first python3 on PATH. A reused KVSIM_BUILD_DIR keeps
            # its own (the same ABI when its base is the same interpreter).
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release", "-DKVSIM_BUILD_GUI=OFF",
                            "-DKVSIM_BUILD_TESTS=OFF", "-DKVSIM_BUILD_BENCHMARKS=OFF",
                            "-DKVSIM_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"] +
                           os.environ.get("CMAKE_ARGS", "").split(), check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_kvsim", "-j", jobs],
                       check=True)
        built = build_dir / "python" / "kvsim" / target.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(ext_modules=[CMakeExtension("kvsim._kvsim")], cmdclass={"build_ext": CMakeBuild})
