#!/usr/bin/env bash
# Requests and bytes to read each GGUF of the test data over HTTP: @huggingface/gguf 0.4.6
# (npm; node from Debian) and `gguf dump --json` (metadata and tensor infos, as gguf()
# returns; with the default first request of 8 MiB, and with 2 MB as @huggingface/gguf's
# chunks), all against the same nginx on a free loopback port, counted from its access log.
#
# Usage: bench/remote/remote_bench.sh [BUILD_DIR] [DATA_DIR]
#   BUILD_DIR defaults to ./build (the gguf binary), DATA_DIR to $GGUF_TEST_DATA or ../shared/data.
#   The npm package is installed into $GGUF_BENCH_NPM_DIR (default ~/.cache/gguf-bench-npm).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
data=$(realpath "${2:-${GGUF_TEST_DATA:-../shared/data}}")
gguf_bin=$(realpath "$build/gguf")
npm_dir=${GGUF_BENCH_NPM_DIR:-$HOME/.cache/gguf-bench-npm}

command -v node >/dev/null || { echo "node is required (Debian: apt-get install nodejs npm)" >&2; exit 2; }
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "nginx is required (scripts/bootstrap.sh)" >&2; exit 2; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -f "$npm_dir/node_modules/@huggingface/gguf/package.json" ] ||
   ! grep -q '"version": "0.4.6"' "$npm_dir/node_modules/@huggingface/gguf/package.json"; then
  mkdir -p "$npm_dir"
  npm install --prefix "$npm_dir" --no-audit --no-fund --silent @huggingface/gguf@0.4.6 >/dev/null
fi
cp bench/remote/read_hf.mjs "$npm_dir/read_hf.mjs"

work=$(mktemp -d)
chmod 755 "$work"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/tmp"
cat > "$work/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 64; }
http {
  log_format counts '\$request_uri \$status \$body_bytes_sent';
  access_log $work/access.log counts;
  client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    location /data/ { alias $data/; }
    location /padded/ { alias $work/padded/; }
  }
}
CONF
"$nginx_bin" -p "$work/" -c "$work/nginx.conf" -e "$work/error.log" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done

# Requests and body bytes logged since the last call (the count of lines read so far is
# kept in a file: take runs in a subshell).
echo 0 > "$work/logged"
take() {
  sleep 0.05
  local lines logged
  logged=$(cat "$work/logged")
  lines=$(wc -l < "$work/access.log")
  tail -n +"$((logged + 1))" "$work/access.log" | head -n "$((lines - logged))" | awk '{n++; b+=$3} END {printf "%d %d", n, b}'
  echo "$lines" > "$work/logged"
}

# Vocabularies followed by 64 MiB of zeros: the fetch pattern of a model whose tensor data
# follows its vocabulary (neither reader looks at the bytes after the metadata).
mkdir -p "$work/padded/vocab"
chmod -R 755 "$work/padded"
for v in command-r gemma-4 llama-bpe qwen2; do
  { cat "$data/vocab/ggml-vocab-$v.gguf"; head -c $((64 << 20)) /dev/zero; } > "$work/padded/vocab/ggml-vocab-$v+data.gguf"
done
chmod 644 "$work/padded/vocab/"*

printf "%-42s %10s %10s | %4s %10s | %4s %10s | %4s %10s | %s\n" file size metadata hf.r hf.bytes ours ours.bytes \
  2MB.r 2MB.bytes notes
tot_hf_r=0; tot_hf_b=0; tot_r=0; tot_b=0; tot_r2=0; tot_b2=0
files=$(cd "$data" && ls models/*.gguf vocab/*.gguf quant/*.gguf compat/*.gguf)
files="$files $(cd "$work" && ls padded/vocab/*.gguf)"
for rel in $files; do
  if [[ $rel == padded/* ]]; then path="$work/$rel"; url="http://127.0.0.1:$port/$rel"
  else path="$data/$rel"; url="http://127.0.0.1:$port/data/$rel"; fi
  size=$(stat -c %s "$path")
  meta=$("$gguf_bin" dump --json "$path" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["data_offset"])' 2>/dev/null || echo "-")
  take >/dev/null
  hf=$(cd "$npm_dir" && node read_hf.mjs "$url" 2>&1 | head -1)
  read -r hf_r hf_b <<<"$(take)"
  "$gguf_bin" dump --json "$url" >/dev/null 2>&1 && ours_status=ok || ours_status=error
  read -r r b <<<"$(take)"
  # Ours with a first request of @huggingface/gguf's chunk size (2 MB), for comparison.
  "$gguf_bin" dump --json "$url" --first-request 2000000 >/dev/null 2>&1 || true
  read -r r2 b2 <<<"$(take)"
  note=""
  [ "${hf%% *}" != ok ] && note="hf: ${hf:0:60}"
  [ "$ours_status" != ok ] && note="$note ours: error"
  printf "%-42s %10s %10s | %4s %10s | %4s %10s | %4s %10s | %s\n" "$rel" "$size" "$meta" "$hf_r" "$hf_b" "$r" "$b" \
    "$r2" "$b2" "$note"
  tot_hf_r=$((tot_hf_r + hf_r)); tot_hf_b=$((tot_hf_b + hf_b)); tot_r=$((tot_r + r)); tot_b=$((tot_b + b))
  tot_r2=$((tot_r2 + r2)); tot_b2=$((tot_b2 + b2))
done
printf "%-42s %10s %10s | %4s %10s | %4s %10s | %4s %10s |\n" total "" "" "$tot_hf_r" "$tot_hf_b" "$tot_r" "$tot_b" \
  "$tot_r2" "$tot_b2"
