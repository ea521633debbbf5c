#!/usr/bin/env bash
# The Python package built and checked as the Python ecosystem does it:
#  1. a clean tree: the files git tracks (or would add) copied and committed to a fresh
#     repository outside the source tree;
#  2. `python3 -m build --no-isolation --sdist --wheel` in its python/ folder, the extension
#     module from BUILD_DIR (GGUFKIT_CMAKE_BUILD_DIR; CMake writes only to its own tree);
#  3. `git status --porcelain --ignored` of the copy is empty: building wrote nothing into
#     the source tree (no build/, no *.egg-info, no dist/);
#  4. the metadata of the sdist and the wheel: the version of CMakeLists.txt (its one
#     source), readme, license, classifiers, requires-python; the wheel ships py.typed and
#     the native module's stub _core.pyi, and no other .pyi;
#  5. the wheel pip-installed into a fresh venv (--system-site-packages: Debian's numpy;
#     --no-index: nothing from a registry), imported outside the source tree: __version__
#     equals CMakeLists.txt's and `gguf --version`, a few calls on real data;
#  6. mypy --strict on a small typed user script against the installed package, and
#     mypy's stubtest: the stub _core.pyi names what the module has.
#
#   scripts/test-python-package.sh BUILD_DIR [DATA_DIR]   (ctest runs it as python_package)
#
# Needs Debian's python3-build and python3-mypy (scripts/bootstrap.sh installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
data=${GGUF_TEST_DATA:-${2:-$root/../shared/data}}  # the environment first, as the C++ tests
python=${GGUF_PYTHON:-/usr/bin/python3}
work=$build/python-package-test
rm -rf "$work"
mkdir -p "$work"
fail() { echo "test-python-package: $*" >&2; exit 1; }
"$python" -c 'import build, mypy' 2>/dev/null || fail "python3-build and python3-mypy are needed (scripts/bootstrap.sh)"
version=$(sed -n 's/^project(gguf VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || fail "no project version in CMakeLists.txt"

# 1. the clean tree (the working tree's files, committed: what a fresh clone would hold)
tree=$work/tree
mkdir -p "$tree"
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
  (cd "$root" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
  (cd "$root" && xargs -0 -r cp --parents -t "$tree")
git -C "$tree" init -q
git -C "$tree" add -A
git -C "$tree" -c user.name=test -c user.email=test@localhost commit -q -m "clean tree"
[ -z "$(git -C "$tree" status --porcelain --ignored)" ] || fail "the copy is not clean before the build"

# 2. sdist and wheel
dist=$work/dist
GGUFKIT_CMAKE_BUILD_DIR=$build "$python" -m build --no-isolation --sdist --wheel --outdir "$dist" "$tree/python" \
  >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; fail "python -m build failed"; }
sdist=$(ls "$dist"/ggufkit-*.tar.gz)
wheel=$(ls "$dist"/ggufkit-*.whl)
[ "$(basename "$sdist")" = "ggufkit-$version.tar.gz" ] || fail "sdist $(basename "$sdist"), want version $version"
case $(basename "$wheel") in "ggufkit-$version-"*) ;; *) fail "wheel $(basename "$wheel"), want version $version" ;; esac

# 3. the source tree is as it was
dirty=$(git -C "$tree" status --porcelain --ignored)
[ -z "$dirty" ] || fail "building wrote into the source tree: $dirty"

# 4. metadata
"$python" - "$sdist" "$wheel" "$version" <<'PY' || fail "package metadata"
import sys, tarfile, zipfile
from email.parser import Parser
sdist, wheel, version = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    meta = Parser().parsestr(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode())
with tarfile.open(sdist) as t:
    pkg_info = Parser().parsestr(t.extractfile(f"ggufkit-{version}/PKG-INFO").read().decode())
for m, what in ((meta, "wheel"), (pkg_info, "sdist")):
    assert m["Name"] == "ggufkit" and m["Version"] == version, (what, m["Name"], m["Version"])
    assert m["Requires-Python"] == ">=3.9", (what, m["Requires-Python"])
    assert m["License"] == "MIT", (what, m["License"])
    classifiers = m.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "License :: OSI Approved :: MIT License" in classifiers, (what, classifiers)
    assert m["Description-Content-Type"] == "text/markdown" and "# ggufkit" in m.get_payload(), (what, "readme")
assert "numpy" in (meta.get_all("Requires-Dist") or []), "dependencies"
assert "ggufkit/py.typed" in names and "ggufkit/_core.pyi" in names, names
stubs = sorted(n for n in names if n.endswith(".pyi"))
assert stubs == ["ggufkit/_core.pyi"], f"stubs for the native module only, not {stubs}"
assert any(n.startswith("ggufkit/_core.") and n.endswith(".so") for n in names), names
print(f"test-python-package: {len(names)} files in the wheel, metadata complete")
PY

# 5. a fresh venv with the wheel, used from outside the source tree
venv=$work/venv
"$python" -m venv --system-site-packages "$venv"
"$venv/bin/pip" install -q --no-index --no-deps "$wheel" || fail "pip install of the wheel failed"
cd "$work"
want_cli=$("$build/gguf" --version)
[ "$want_cli" = "gguf $version" ] || fail "gguf --version says '$want_cli', want gguf $version"
GGUF_TEST_DATA=$data "$venv/bin/python" - "$version" "$tree" <<'PY' || fail "the installed package"
import os, sys
from pathlib import Path
import ggufkit
version, tree = sys.argv[1:]
assert not ggufkit.__file__.startswith(tree), ggufkit.__file__
assert ggufkit.__version__ == version, ggufkit.__version__
from importlib.metadata import version as dist_version
assert dist_version("ggufkit") == version, dist_version("ggufkit")
data = Path(os.environ["GGUF_TEST_DATA"])
f = ggufkit.open(data / "models/stories260K.gguf")
assert f.metadata["general.architecture"] == "llama"
v = ggufkit.Vocab(f)
ids = v.encode("Hello world")
assert v.decode(ids, remove_special=True).strip() == "Hello world", v.decode(ids)
assert ggufkit.Model(f).embed(ids).shape == (len(ids), ggufkit.Model(f).hparams["n_embd"])
print(f"test-python-package: ggufkit {ggufkit.__version__} from {Path(ggufkit.__file__).parent}: ids {ids}")
PY

# 6. type checks: a typed user script, and the stub against the module
cat >"$work/user.py" <<'PY'
from __future__ import annotations

import numpy as np
import numpy.typing as npt

import ggufkit
from ggufkit.compat import GGUFReader


def first_ids(path: str, text: str) -> list[int]:
    vocab = ggufkit.Vocab(path)
    ids: list[int] = vocab.encode(text)
    return ids[:4]


def embedding(path: str) -> npt.NDArray[np.float32]:
    f: ggufkit.File = ggufkit.open(path)
    arch: object = f.metadata["general.architecture"]
    print(arch, f.metadata.type("general.architecture"), ggufkit.__version__)
    return ggufkit.Model(f).embed("Hello")


def fields(path: str) -> list[str]:
    return list(GGUFReader(path).fields)


def rename(path: str, out: str) -> bool:
    return bool(ggufkit.edit(path, set={"general.name": "x"}, out=out)["in_place"])
PY
cat >"$work/user_wrong.py" <<'PY'
import ggufkit

n: str = ggufkit.Vocab("m.gguf").n_tokens  # an int: mypy must refuse this
PY
"$venv/bin/python" -m mypy --strict --no-incremental "$work/user.py" >"$work/mypy.log" 2>&1 ||
  { cat "$work/mypy.log" >&2; fail "mypy --strict on a typed user script"; }
if "$venv/bin/python" -m mypy --strict --no-incremental "$work/user_wrong.py" >"$work/mypy_wrong.log" 2>&1 ||
  ! grep -q 'Incompatible types in assignment' "$work/mypy_wrong.log"; then
  cat "$work/mypy_wrong.log" >&2
  fail "mypy did not see the package's types (a wrong annotation passed)"
fi
"$venv/bin/python" -m mypy.stubtest ggufkit._core --allowlist "$root/python/stubtest-allowlist.txt" \
  >"$work/stubtest.log" 2>&1 || { cat "$work/stubtest.log" >&2; fail "stubtest: _core.pyi does not match the module"; }
echo "test-python-package: all ok (ggufkit $version: clean tree, sdist + wheel, venv, mypy --strict, stubtest)"
