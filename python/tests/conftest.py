"""Shared fixtures: the test data folder (GGUF_TEST_DATA, default ../shared/data beside the
repository) and the gguf command (GGUF_CLI, default build/gguf)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("GGUF_TEST_DATA", ROOT.parent / "shared" / "data"))
CLI = Path(os.environ.get("GGUF_CLI", ROOT / "build" / "gguf"))

VECTOR_FILES = {  # tokenizer-vectors/NAME.jsonl -> the file holding its vocabulary
    name: ("models/" + name + ".gguf" if name in ("stories260K", "llama-2-tiny-random")
           else "vocab/ugm-sp-test.gguf" if name == "ugm-sp-test" else "vocab/ggml-vocab-" + name + ".gguf")
    for name in sorted(p.stem for p in (DATA / "tokenizer-vectors").glob("*.jsonl"))
} if (DATA / "tokenizer-vectors").is_dir() else {}


@pytest.fixture(scope="session")
def data() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"test data not found at {DATA} (set GGUF_TEST_DATA)")  # part of the suite, not optional
    return DATA


@pytest.fixture(scope="session")
def cli() -> Path:
    if not CLI.is_file():
        pytest.fail(f"the gguf command is not built at {CLI} (set GGUF_CLI)")
    return CLI


def run(cli: Path, *args: str, stdin: bytes | None = None) -> bytes:
    r = subprocess.run([str(cli), *args], input=stdin, capture_output=True, check=False)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return r.stdout


def read_jsonl(path: Path) -> list:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
