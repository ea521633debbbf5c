"""Builds ggufkit._core with CMake over the repository this folder belongs to.

`pip install --no-build-isolation ./python` configures the C++ library and the module in
a temporary folder (CMake, a C++20 compiler, pybind11, PCRE2 and ICU development files
must be installed: scripts/bootstrap.sh does it on Debian). With GGUFKIT_CMAKE_BUILD_DIR
set to a configured build tree of this repository (such as ./build), that tree builds the
module instead, reusing its compiled library.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent


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


setup(ext_modules=[Extension("ggufkit._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
