#!/usr/bin/env python3
"""Time to read a GGUF's metadata over HTTP, modelled as requests x RTT + bytes / bandwidth,
for each reader's request plan, at three links (10 Mbit/s 100 ms, 100 Mbit/s 50 ms,
1 Gbit/s 20 ms), next to the ideal (one request of exactly the metadata).

The plans are measured, not assumed, where the reader runs here: every file is served by
one nginx on loopback and each reader reads it; the requests and their body bytes come
from nginx's access log.
  ours         `gguf info URL` with the default first request (--first-request to compare)
  ours-F       `gguf info URL --first-request F` for each F of --first (e.g. 65536)
  hf           @huggingface/gguf 0.4.6 `gguf(url)` (bench/remote/read_hf.mjs; node + npm)
  parser-go    gguf-parser-go (not runnable here: no Go toolchain): its plan from its source
               (util/httpx/file.go, file_from_remote.go): a HEAD request, then reads
               through a 4 MiB ring buffer, each refill one GET of 4 MiB from the read
               position, so 1 + ceil(M / 4 MiB) requests of 4 MiB (the last cut at the
               file's end). It also turns keep-alive off (a new connection per request),
               which this model does not charge for: its figures are a lower bound.
  ideal        one request of M bytes, M = the data offset (header, key/values, tensor
               infos and padding).

Files: every .gguf under DATA (vocab, models, compat, quant), the four large vocabularies
followed by 64 MiB of zeros (a model whose tensor data follows its vocabulary), and a
4 GB model header: the llama-bpe vocabulary's key/values followed by the 291 tensor infos
of a 32-layer Llama-3-8B-shaped model in q4_K, on a sparse file of 4.6 GB.

Prints, per link, each file's time per plan as a ratio to the ideal (goal: <= 2.0), and
the worst ratio per plan.

usage: bench/remote/plan_table.py [--build build] [--first 65536 ...] [--data DIR]
"""
import argparse
import math
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINKS = [("10M/100ms", 10e6 / 8, 0.100), ("100M/50ms", 100e6 / 8, 0.050), ("1G/20ms", 1e9 / 8, 0.020)]


def gguf_data_offset(path, kv_end=False):
    """The data offset of a GGUF (v2/v3 little-endian; v1 and big-endian: None); with
    kv_end, where its key/values end instead."""
    with open(path, "rb") as f:
        b = f.read(min(os.path.getsize(path), 64 << 20))
    if b[:4] != b"GGUF":
        return None
    ver = struct.unpack_from("<I", b, 4)[0]
    if ver not in (2, 3):
        return None
    n_t, n_kv = struct.unpack_from("<QQ", b, 8)
    p = 24
    align = 32
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def string(p):
        n = struct.unpack_from("<Q", b, p)[0]
        return b[p + 8:p + 8 + n], p + 8 + n

    def value(t, p):
        if t in sizes:
            return p + sizes[t]
        if t == 8:
            return string(p)[1]
        et, n = struct.unpack_from("<IQ", b, p)
        p += 12
        if et in sizes:
            return p + n * sizes[et]
        for _ in range(n):
            p = value(et, p)
        return p

    for _ in range(n_kv):
        key, p = string(p)
        t = struct.unpack_from("<I", b, p)[0]
        if key == b"general.alignment" and t == 4:
            align = struct.unpack_from("<I", b, p + 4)[0]
        p = value(t, p + 4)
    if kv_end:
        return p
    for _ in range(n_t):
        _, p = string(p)
        nd = struct.unpack_from("<I", b, p)[0]
        p += 4 + 8 * nd + 4 + 8
    return (p + align - 1) // align * align


def write_4gb_header(vocab, out):
    """The key/values of `vocab` (a vocab-only GGUF v3) + the tensor infos of a Llama-3-8B
    shaped model in q4_K, its data section as a sparse hole."""
    b = open(vocab, "rb").read()
    n_t, n_kv = struct.unpack_from("<QQ", b, 8)
    assert n_t == 0
    kv_end = gguf_data_offset(vocab, kv_end=True)
    tensors = []
    n_embd, n_ff, n_layer, n_vocab = 4096, 14336, 32, 128256
    tensors.append(("token_embd.weight", (n_embd, n_vocab)))
    for i in range(n_layer):
        for name, ne in (("attn_norm.weight", (n_embd,)), ("attn_q.weight", (n_embd, n_embd)),
                         ("attn_k.weight", (n_embd, 1024)), ("attn_v.weight", (n_embd, 1024)),
                         ("attn_output.weight", (n_embd, n_embd)), ("ffn_norm.weight", (n_embd,)),
                         ("ffn_gate.weight", (n_embd, n_ff)), ("ffn_up.weight", (n_embd, n_ff)),
                         ("ffn_down.weight", (n_ff, n_embd))):
            tensors.append((f"blk.{i}.{name}", ne))
    tensors += [("output_norm.weight", (n_embd,)), ("output.weight", (n_embd, n_vocab))]
    info = bytearray()
    data = 0
    for name, ne in tensors:
        typ = 12 if len(ne) == 2 else 0  # q4_K, f32
        nbytes = (math.prod(ne) // 256 * 144) if typ == 12 else math.prod(ne) * 4
        info += struct.pack("<Q", len(name)) + name.encode() + struct.pack("<I", len(ne))
        info += b"".join(struct.pack("<Q", x) for x in ne) + struct.pack("<IQ", typ, data)
        data += (nbytes + 31) // 32 * 32
    head = b[:8] + struct.pack("<QQ", len(tensors), n_kv) + b[24:kv_end] + bytes(info)
    pad = (-len(head)) % 32
    with open(out, "wb") as f:
        f.write(head + b"\0" * pad)
        f.truncate(len(head) + pad + data)
    return len(head) + pad


def start_nginx(work, roots):
    port = None
    for _ in range(5):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        locs = "".join(f"    location /{k}/ {{ alias {v}/; }}\n" for k, v in roots.items())
        (work / "tmp").mkdir(exist_ok=True)
        temps = "".join(f"  {t}_temp_path {work}/tmp;\n" for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (work / "nginx.conf").write_text(
            f"daemon off;\nworker_processes 1;\npid {work}/nginx.pid;\nerror_log {work}/error.log;\n"
            "events { worker_connections 64; }\nhttp {\n"
            "  log_format counts '$request_method $request_uri $status $body_bytes_sent';\n"
            f"  access_log {work}/access.log counts;\n{temps}  default_type application/octet-stream;\n"
            f"  server {{\n    listen 127.0.0.1:{port};\n{locs}  }}\n}}\n")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        p = subprocess.Popen([nginx, "-p", f"{work}/", "-c", str(work / "nginx.conf"), "-e", str(work / "error.log")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return p, port
            except OSError:
                if p.poll() is not None:
                    break
                time.sleep(0.05)
        p.kill()
        p.wait()
    sys.exit("nginx did not start")


class log_reader:
    def __init__(self, path):
        self.path, self.pos = path, 0

    def take(self):
        time.sleep(0.05)
        with open(self.path) as f:
            f.seek(self.pos)
            lines = f.read()
            self.pos = f.tell()
        return [int(l.split()[3]) for l in lines.splitlines() if l.split()[0] == "GET" and l.split()[2] in ("200", "206")]


def cost(plan, bw, rtt):
    return sum(rtt + b / bw for b in plan)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--data", default=os.environ.get("GGUF_TEST_DATA", str(ROOT.parent / "shared" / "data")))
    ap.add_argument("--first", type=int, nargs="*", default=[], help="also ours with these first-request sizes")
    ap.add_argument("--no-hf", action="store_true", help="skip @huggingface/gguf (no node)")
    args = ap.parse_args()
    data = Path(args.data).resolve()
    gguf = str(Path(args.build).resolve() / "gguf")
    npm_dir = Path(os.environ.get("GGUF_BENCH_NPM_DIR", Path.home() / ".cache" / "gguf-bench-npm"))
    hf = not args.no_hf and shutil.which("node") and (npm_dir / "node_modules/@huggingface/gguf").exists()
    if hf:
        shutil.copy(ROOT / "bench/remote/read_hf.mjs", npm_dir / "read_hf.mjs")
    work = Path(tempfile.mkdtemp(prefix="gguf-plan-"))
    os.chmod(work, 0o755)
    (work / "extra").mkdir()
    files = []
    for d in ("vocab", "models", "compat", "quant"):
        for p in sorted((data / d).glob("*.gguf")):
            files.append((f"data/{d}/{p.name}", p))
    for v in ("command-r", "gemma-4", "llama-bpe", "qwen2"):
        out = work / "extra" / f"{v}+64MiB.gguf"
        with open(out, "wb") as f:
            f.write((data / "vocab" / f"ggml-vocab-{v}.gguf").read_bytes())
            f.truncate(f.tell() + (64 << 20))
        files.append((f"extra/{out.name}", out))
    big = work / "extra" / "llama3-8b-q4_K-header.gguf"
    write_4gb_header(data / "vocab" / "ggml-vocab-llama-bpe.gguf", big)
    files.append((f"extra/{big.name}", big))
    os.system(f"chmod -R a+rX {work}")
    proc, port = start_nginx(work, {"data": data, "extra": work / "extra"})
    log = log_reader(work / "access.log")
    plans = ["ideal", "ours"] + [f"ours-{f}" for f in args.first] + (["hf"] if hf else []) + ["parser-go"]
    rows = []
    try:
        for rel, path in files:
            try:
                m = gguf_data_offset(path)
            except (struct.error, OverflowError, IndexError):
                m = None  # an invalid file (compat/): no metadata to time
            if m is None:
                continue  # v1 / big-endian / invalid: not every reader reads them
            m = min(m, path.stat().st_size)  # a vocabulary-only file may end before the aligned data offset
            size = path.stat().st_size
            url = f"http://127.0.0.1:{port}/{rel}"
            r = {"file": rel, "M": m, "size": size, "ideal": [m]}
            log.take()
            for name, extra in [("ours", [])] + [(f"ours-{f}", ["--first-request", str(f)]) for f in args.first]:
                p = subprocess.run([gguf, "info", url] + extra, capture_output=True)
                r[name] = log.take() if p.returncode == 0 else None
            if hf:
                p = subprocess.run(["node", str(npm_dir / "read_hf.mjs"), url], capture_output=True, text=True)
                r["hf"] = log.take() if p.stdout.startswith("ok") else None
            chunk = 4 << 20
            r["parser-go"] = [0] + [min(chunk, size - o) for o in range(0, m, chunk)]
            rows.append(r)
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)

    for lname, bw, rtt in LINKS:
        print(f"\n== {lname}: time / ideal time (requests, MB) ==")
        print(f"{'file':46} {'M (bytes)':>11} " + " ".join(f"{p:>17}" for p in plans[1:]))
        worst = {p: 0.0 for p in plans}
        for r in rows:
            ideal = cost(r["ideal"], bw, rtt)
            cells = []
            for p in plans[1:]:
                plan = r.get(p)
                if plan is None:
                    cells.append(f"{'-':>17}")
                    continue
                x = cost(plan, bw, rtt) / ideal
                worst[p] = max(worst[p], x)
                cells.append(f"{x:5.2f} ({len(plan):2d},{sum(plan) / 1e6:6.2f})")
            print(f"{r['file'][-46:]:46} {r['M']:>11} " + " ".join(cells))
        print(f"{'worst':46} {'':>11} " + " ".join(f"{worst[p]:17.2f}" for p in plans[1:]))


if __name__ == "__main__":
    main()
