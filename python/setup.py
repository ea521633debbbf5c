"""Builds ggufkit._core with CMake over the repository this folder belongs to.

`pip install --no-build-isolation ./python` configures the C++ library and the module in
a temporary folder (CMake, a C++20 compiler, pybind11, PCRE2 and ICU development files
must be installed: scripts/bootstrap.sh does it on Debian). With GGUFKIT_CMAKE_BUILD_DIR
set to a configured build tree of this repository (such as ./build), that tree builds the
module instead, reusing its compiled library.

The version has one source, `project(gguf VERSION ...)` in ../CMakeLists.txt (an sdist
carries it in PKG-INFO). Nothing is written into the source tree: setuptools' build and
egg-info folders go to a temporary folder (or beside GGUFKIT_CMAKE_BUILD_DIR's tree).
"""
import atexit
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def version() -> str:
    """CMakeLists.txt's project version; from an sdist, the one its PKG-INFO recorded."""
    cmake = ROOT / "CMakeLists.txt"
    if cmake.is_file():
        m = re.search(r"^project\(gguf VERSION ([0-9][0-9.]*)", cmake.read_text(encoding="utf-8"), re.M)
        if not m:
            raise RuntimeError(f"ggufkit: no 'project(gguf VERSION x.y.z' line in {cmake}")
        return m.group(1)
    pkg_info = HERE / "PKG-INFO"
    if pkg_info.is_file():
        m = re.search(r"^Version: (\S+)", pkg_info.read_text(encoding="utf-8"), re.M)
        if m:
            return m.group(1)
    raise RuntimeError(f"ggufkit: the C++ sources are not beside this folder ({ROOT})")


def scratch_dir() -> str:
    """Where setuptools builds (build/, *.egg-info): outside the source tree."""
    build = os.environ.get("GGUFKIT_CMAKE_BUILD_DIR")
    if build:
        path = Path(build).resolve() / "python-setuptools"
        path.mkdir(parents=True, exist_ok=True)
        return str(path)
    path = tempfile.mkdtemp(prefix="ggufkit-build-")
    atexit.register(shutil.rmtree, path, True)
    return path


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if not (ROOT / "CMakeLists.txt").is_file():
            raise RuntimeError(f"ggufkit: the C++ sources are not beside this folder ({ROOT})")
        build = os.environ.get("GGUFKIT_CMAKE_BUILD_DIR")
        if build:
            build = Path(build).resolve()
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            subprocess.check_call([
                "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                "-DGGUF_BUILD_TESTS=OFF", "-DGGUF_BUILD_BENCH=OFF", "-DGGUF_BUILD_PYTHON=ON",
                f"-DPython_EXECUTABLE={sys.executable}",
            ])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", str(build), "--target", "ggufkit_core", "-j", jobs])
        built = build / "python" / ("_core" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.is_file():
            raise RuntimeError(f"ggufkit: {built} was not built (is pybind11 installed?)")
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


SCRATCH = scratch_dir()
setup(version=version(), ext_modules=[Extension("ggufkit._core", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": os.path.join(SCRATCH, "build")}, "egg_info": {"egg_base": SCRATCH}})
