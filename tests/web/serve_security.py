#!/usr/bin/env python3
"""`gguf serve` under attack, over raw sockets against the real server:
path traversal in every encoding, methods other than GET/HEAD, oversized request lines,
headers and bodies (a 100 MB tokenizer request), a slow client, a foreign Host header,
the non-loopback addresses of this machine (not listening by default), the warning of
--host, and a clean exit on SIGINT and SIGTERM.

usage: serve_security.py GGUF_CLI DATA_DIR   ($GGUF_TEST_DATA overrides DATA_DIR; exit 77: no data)
"""
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

cli = sys.argv[1]
data = os.environ.get("GGUF_TEST_DATA") or sys.argv[2]
model = os.path.join(data, "models", "stories260K.gguf")
if not os.path.exists(model):
    print(f"{model} absent: skipped")
    sys.exit(77)

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def start(*extra):
    p = subprocess.Popen([cli, "serve", "--port", "0", model, *extra], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.search(r"listening on http://([^/]+):(\d+)/", line)
    if not m:
        p.kill()
        raise SystemExit(f"gguf serve did not start: {line!r} {p.stderr.read()!r}")
    return p, int(m.group(2))


def raw(port, request, timeout=10.0, send_timeout=None):
    """Sends bytes, returns (status, headers+body bytes) or (None, b'') when closed unanswered."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        try:
            s.sendall(request)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass  # the server stopped reading: its answer (if any) is still there
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not b:
                break
            chunks.append(b)
    finally:
        s.close()
    resp = b"".join(chunks)
    m = re.match(rb"HTTP/1\.[01] (\d{3})", resp)
    return (int(m.group(1)) if m else None), resp


def get(port, target, headers=b"", method=b"GET", body=b""):
    req = method + b" " + target + b" HTTP/1.1\r\nHost: 127.0.0.1:" + str(port).encode() + \
        b"\r\nConnection: close\r\n" + headers + b"\r\n" + body
    return raw(port, req)


proc, port = start()
try:
    # a plain request works (the checks below are not passing because nothing answers)
    st, resp = get(port, b"/api/files")
    check(st == 200 and b'"files"' in resp, "GET /api/files answers 200")
    st, resp = get(port, b"/")
    check(st == 200 and b"<!doctype html>" in resp, "GET / answers the page")

    # path traversal: no request path ever reaches the filesystem
    secret = b"root:x:0:0"
    traversals = [b"/../../../../etc/passwd", b"/..%2f..%2f..%2f..%2fetc%2fpasswd", b"/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                  b"/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", b"/..%252f..%252f..%252fetc%252fpasswd",
                  b"/%252e%252e/%252e%252e/etc/passwd", b"/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
                  b"/%c0%af..%c0%af..%c0%afetc/passwd", b"/..\\..\\..\\etc\\passwd", b"/..%5c..%5c..%5cetc%5cpasswd",
                  b"/....//....//....//etc/passwd", b"/index.html/../../../../etc/passwd", b"//etc/passwd",
                  b"/%00/../../etc/passwd", b"/etc/passwd%00.html", b"/%u002e%u002e/%u002e%u002e/etc/passwd",
                  b"/./././../../../etc/passwd", b"/app.js/..%2f..%2f..%2fetc/passwd",
                  b"http://127.0.0.1/../../../etc/passwd", b"/api/../../../../etc/passwd",
                  b"/api/value?key=../../../../etc/passwd", b"/api/info?file=../../../../etc/passwd",
                  b"/api/info?file=%2fetc%2fpasswd", b"/api/kv?file=/etc/passwd", b"/api/tokenize?file=..%2f..&text=x",
                  b"/" + model.encode(), b"/api/" + model.encode(), b"/%2f" + model.replace("/", "%2f").encode()]
    for t in traversals:
        st, resp = get(port, t)
        check(st is not None and st != 200 and secret not in resp and b"GGUF" not in resp[:2000].split(b"\r\n\r\n", 1)[-1][:4],
              f"traversal {t.decode(errors='replace')} -> {st}")

    # GET and HEAD only
    for m in [b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS"]:
        st, resp = get(port, b"/api/files", b"Content-Length: 2\r\n", m, b"{}")
        check(st == 405 and b"Allow: GET, HEAD" in resp, f"{m.decode()} -> 405 ({st})")
    for m in [b"TRACE", b"CONNECT", b"PROPFIND", b"FOO"]:
        st, resp = get(port, b"/api/files", b"", m)
        check(st in (400, 405), f"{m.decode()} refused ({st})")
    st, resp = get(port, b"/api/files", b"", b"HEAD")
    check(st == 200, f"HEAD -> 200 ({st})")

    # oversized requests
    st, _ = get(port, b"/api/files?x=" + b"a" * 100_000)
    check(st == 414, f"100 KB request line -> 414 ({st})")
    st, _ = get(port, b"/api/files", b"X-Big: " + b"a" * 100_000 + b"\r\n")
    check(st in (400, 413, 414, 431) or st is None, f"100 KB header refused ({st})")
    st, _ = get(port, b"/api/files", b"".join(b"X-H%d: 1\r\n" % i for i in range(5000)))
    check(st == 431, f"5000 header fields refused ({st})")
    st, _ = get(port, b"/api/files", b"Content-Length: 100000000\r\n", b"GET", b"a" * 65536)
    check(st == 413, f"GET with a 100 MB body -> 413 ({st})")
    t0 = time.monotonic()
    big = b"GET /api/tokenize?text=" + b"a" * (100 << 20) + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    st, _ = raw(port, big, timeout=20)
    check(st == 414 and time.monotonic() - t0 < 15, f"tokenizer request of 100 MB refused ({st}, {time.monotonic() - t0:.1f} s)")
    st, resp = get(port, b"/api/tokenize?text=" + b"a" * 8000)
    check(st == 200 and b'"ids"' in resp, f"tokenizer request of 8000 bytes runs ({st})")
    st, resp = get(port, b"/api/estimate?ctx=99999999999")
    check(st == 400, f"estimate with an absurd context refused ({st})")
    st, resp = get(port, b"/api/value?key=tokenizer.ggml.tokens&count=99999999")
    check(st == 400, f"array slice above the limit refused ({st})")

    # DNS rebinding: a page of another origin cannot read the API through the browser
    st, _ = raw(port, b"GET /api/files HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    check(st == 421, f"foreign Host header -> 421 ({st})")

    # a slow client is cut off, and does not stop others from being served: one that sends
    # nothing (5 s read timeout), one that trickles a byte every half second (10 s deadline)
    quiet = socket.create_connection(("127.0.0.1", port), timeout=30)
    quiet.sendall(b"GET /api/files HTTP/1.1\r\n")
    t0 = time.monotonic()
    try:
        got = quiet.recv(4096)  # an error answer, or the end of the connection
    except ConnectionResetError:
        got = b""
    check(not got.startswith(b"HTTP/1.1 200") and time.monotonic() - t0 < 9,
          f"silent client answered or cut off after {time.monotonic() - t0:.1f} s ({got[:12]!r})")
    quiet.close()
    slow = socket.create_connection(("127.0.0.1", port), timeout=30)
    slow.sendall(b"GET /api/files HTTP/1.1\r\n")
    t0 = time.monotonic()
    st, _ = get(port, b"/api/files")
    check(st == 200 and time.monotonic() - t0 < 3, f"served while a slow client holds a connection ({time.monotonic() - t0:.2f} s)")
    closed_after = None
    try:
        for _ in range(30):
            slow.sendall(b"X")
            time.sleep(0.5)
            slow.settimeout(0.01)
            try:
                if slow.recv(4096) == b"":
                    closed_after = time.monotonic() - t0
                    break
            except socket.timeout:
                pass
            except ConnectionResetError:
                closed_after = time.monotonic() - t0
                break
    except (BrokenPipeError, ConnectionResetError):
        closed_after = time.monotonic() - t0
    slow.close()
    check(closed_after is not None and closed_after < 14, f"trickling client cut off after {closed_after} s")

    # not listening on the machine's other addresses
    addrs = set()
    for fam, _, _, _, sa in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
        addrs.add(sa[0])
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.connect(("10.255.255.255", 1))
        addrs.add(u.getsockname()[0])
        u.close()
    except OSError:
        pass
    addrs = {a for a in addrs if not a.startswith("127.")}
    if not addrs:
        print("note: this machine has no non-loopback IPv4 address; that check did not run")
    for a in sorted(addrs):
        try:
            socket.create_connection((a, port), timeout=2).close()
            check(False, f"listening on {a}:{port}")
        except (ConnectionRefusedError, socket.timeout, OSError) as e:
            check(True, f"not listening on {a}:{port} ({type(e).__name__})")

    # clean shutdown
    proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(timeout=5)
        check(rc == 0, f"SIGINT: exit {rc}")
    except subprocess.TimeoutExpired:
        check(False, "SIGINT: still running after 5 s")
finally:
    if proc.poll() is None:
        proc.kill()

proc, port = start()
proc.send_signal(signal.SIGTERM)
try:
    rc = proc.wait(timeout=5)
    check(rc == 0, f"SIGTERM: exit {rc}")
except subprocess.TimeoutExpired:
    proc.kill()
    check(False, "SIGTERM: still running after 5 s")

proc, port = start("--host", "0.0.0.0")
proc.send_signal(signal.SIGTERM)
proc.wait(timeout=5)
err = proc.stderr.read()
check("warning: listening on 0.0.0.0" in err, "--host 0.0.0.0 warns")

print(f"{failures} failures")
sys.exit(1 if failures else 0)
