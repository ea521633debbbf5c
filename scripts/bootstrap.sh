#!/usr/bin/env bash
# Installs the build dependencies (Debian packages) and builds gguf in ./build (Release).
# Usage: scripts/bootstrap.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake make g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
          libcli11-dev libpcre2-dev zlib1g-dev libxxhash-dev libssl-dev clang-14 libclang-rt-14-dev
          libcurl4-openssl-dev nginx libcpp-httplib-dev chromium
          python3-dev python3-venv python3-pybind11 pybind11-dev python3-numpy python3-pytest
          python3-distributed python3-setuptools python3-wheel
          python3-build python3-mypy  # scripts/test-python-package.sh: sdist + wheel from a clean clone, a typed user script
          python3-jinja2 faketime  # python3-jinja2: scripts/record_jinja_cases.py, record_chat_transformers.py; faketime: record-chat-llamacpp.sh
          strace  # tests/cli: a SIGKILL injected at a chosen rename (split over an older set)
          lld valgrind)  # lld: links gguf in tools/gguf/startup-order.txt's order; valgrind: scripts/cli-startup-order.sh
# node + npm for the @huggingface/gguf cross-check (tests/js); a NodeSource nodejs brings
# its own npm (Debian's npm package would conflict with it).
command -v npm >/dev/null || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# @huggingface/gguf, pinned by tests/js/package-lock.json (a GGUF reader that is not ours).
(cd tests/js && npm ci --no-audit --no-fund --loglevel=error) ||
  echo "bootstrap: npm ci in tests/js failed: the @huggingface/gguf cross-check will be skipped" >&2
# puppeteer-core, pinned by tests/web/package-lock.json: drives Debian's chromium in the
# browser tests of gguf serve (no browser is downloaded).
(cd tests/web && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) ||
  echo "bootstrap: npm ci in tests/web failed: the browser tests of gguf serve will be skipped" >&2

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
