"""Where the reference llama.cpp and the test data are, for the scripts and benchmarks that
run or build against them (see /work/shared/reference/README.md for how it is set up).

    ref = reference_setup.locate()
    ref.src       # llama.cpp's source tree (headers, common/, ggml/, models/templates)
    ref.bindir    # its prebuilt libraries (libllama.RELEASE.so, libggml*.so)
    ref.release() # the release those libraries are, e.g. "v0.5.0" (read from bindir)
    ref.data      # the test data folder

env: GGUF_REF_DIR (default $HOME/.cache/gguf-ref), GGUF_TEST_DATA (default ../shared/data
beside the repository).
"""
import json
import os
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent


class Reference(NamedTuple):
    dir: Path
    src: Path
    bindir: Path
    data: Path

    def release(self) -> str:
        meta = json.loads((self.bindir / "_nlcBuildMetadata.json").read_text())
        return meta["buildOptions"]["llamaCpp"]["release"]


def locate() -> Reference:
    ref = Path(os.environ.get("GGUF_REF_DIR", Path.home() / ".cache" / "gguf-ref"))
    bindir = ref / "node_modules" / "@node-llama-cpp" / "linux-x64" / "bins" / "linux-x64"
    data = Path(os.environ.get("GGUF_TEST_DATA", ROOT.parent / "shared" / "data")).resolve()
    return Reference(ref, ref / "llsrc", bindir, data)
