#!/usr/bin/env bash
# Records llama.cpp v0.5.0's chat layer for tests/chat: builds scripts/chat_reference_driver.cpp against the
# reference's libllama + libllama-common (../shared/reference/setup.sh) and writes
#   tests/chat/data/server.jsonl.gz   common_chat_templates_apply prompts (llama-server, default options)
#   tests/chat/data/builtin.jsonl.gz  llama_chat_apply_template outputs of every built-in name + detections
#   tests/chat/data/server-no-template.jsonl.gz  the server prompts and caps of the vocabulary files
#                                     without tokenizer.chat_template and of the name "chatml"
#                                     (llama-server's Jinja chatml)
# for every template of tests/chat/data/templates.jsonl.gz (scripts/record_chat_transformers.py writes it)
# times tests/chat/data/conversations/*.json. The time is fixed (faketime, TZ=UTC) at SOURCE_DATE_EPOCH
# (default 1721995200 = 2024-07-26 12:00:00 UTC), so strftime_now and llama-server's date_string repeat.
# Usage: scripts/record-chat-llamacpp.sh [REF_DIR]     needs: g++, faketime (Debian), the reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-}
. "$root/scripts/reference.sh"
[ -d "$S" ] && [ -d "$B" ] || { echo "no llama.cpp reference in $ref (see ../shared/reference/setup.sh)" >&2; exit 77; }
command -v faketime >/dev/null || { echo "faketime missing: apt-get install -y faketime" >&2; exit 2; }
epoch=${SOURCE_DATE_EPOCH:-1721995200}
out=$root/tests/chat/data
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
g++ -O1 -std=c++17 -w -I"$S/include" -I"$S/ggml/include" -I"$S/common" -I"$S/src" -I"$S/vendor" \
    "$root/scripts/chat_reference_driver.cpp" -o "$tmp/driver" \
    -L"$B" -l:libllama-common.so -l:libllama.v0.5.0.so -l:libggml.v0.5.0.so -l:libggml-base.so -Wl,-rpath,"$B"
zcat "$out/templates.jsonl.gz" > "$tmp/templates.jsonl"
run() { TZ=UTC faketime -f "@$(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S')" "$tmp/driver" "$@" < "$tmp/templates.jsonl"; }
run server "$out/conversations" "$data" | gzip -9n > "$out/server.jsonl.gz"
run builtin "$out/conversations" | gzip -9n > "$out/builtin.jsonl.gz"
# the vocabulary files without tokenizer.chat_template: llama-server's default (a Jinja chatml)
python3 "$root/scripts/vocab_without_template.py" "$data" > "$tmp/no-template.jsonl"
# and --chat-template chatml, which llama-server also replaces by that Jinja chatml
echo '{"name": "name:chatml", "source": "chatml", "tokens": {}}' >> "$tmp/no-template.jsonl"
TZ=UTC faketime -f "@$(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S')" "$tmp/driver" server "$out/conversations" "$data" \
    < "$tmp/no-template.jsonl" | gzip -9n > "$out/server-no-template.jsonl.gz"
for f in server builtin server-no-template; do
  echo "$f: $(zcat "$out/$f.jsonl.gz" | grep -c '"prompt"') prompts, $(zcat "$out/$f.jsonl.gz" | grep -c '"error"') errors"
done
