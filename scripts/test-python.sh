#!/usr/bin/env bash
# Installs the Python package into a virtual environment inside the build tree, as the
# README says (python3 -m venv --system-site-packages; pip install --no-build-isolation
# ./python), reusing the build tree's compiled module, and runs the pytest suite
# (python/tests) over ../shared/data.
#
#   scripts/test-python.sh BUILD_DIR [pytest args...]       (ctest runs it as python_pytest)
#
# Environment: GGUF_PYTHON (default /usr/bin/python3: Debian's interpreter, which sees
# Debian's numpy, pybind11, pytest, distributed), GGUF_TEST_DATA, GGUF_REF_DIR (gguf-py, the
# reference of the compat tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shift
python=${GGUF_PYTHON:-/usr/bin/python3}
venv=$build/python-venv

[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"
# --no-index: everything comes from the system's packages, never from a registry
GGUFKIT_CMAKE_BUILD_DIR=$build "$venv/bin/pip" install --no-build-isolation --no-index --no-deps -q "$root/python"
cd "$build"
GGUF_CLI=${GGUF_CLI:-$build/gguf} exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"
