#!/usr/bin/env python3
"""Records llama.cpp's tokenization as test vectors: tests/vocab/data/llama-vectors.jsonl.gz.

Sources: every vocabulary in the test data folder (vocab/*.gguf and the models' own), and
every tokenizer.ggml.pre name the reference llama.cpp accepts (read from its
src/llama-vocab.cpp) set on three real BPE vocabularies (a copy with tokenizer.ggml.pre
rewritten by `gguf set`). Texts: stress texts for the pre-tokenizers (below). Modes:
plain, parse_special, add_special + parse_special, through llama_tokenize itself (a small
driver, scripts/reference/llama_tokenize_vectors.cpp, built against the reference libllama).

Moving to a newer llama.cpp release is running this again with that release set up
(the shared reference setup script; GGUF_REF_DIR).

usage: scripts/make_tokenizer_vectors.py [--gguf build/gguf] [--out FILE]
env:   GGUF_REF_DIR   the reference (default $HOME/.cache/gguf-ref): llsrc/ (llama.cpp's
                      sources) and node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
                      (its prebuilt libllama / libggml)
       GGUF_TEST_DATA the test data folder (default ../shared/data beside the repository)

Output, gzip-compressed JSON lines:
  line 1: {"llama.cpp": RELEASE, "texts": [TEXT, ...], "modes": [...]}
  then one line per source: {"vocab": PATH (relative to the data folder), "pre": NAME or
  null, "load": true|false, "cases": ...}
  A case is [plain, special, add_special] per text; each is a list of ids, "abort"
  (llama.cpp aborted, e.g. GGML_ASSERT) or "error"; special = 0 means "same as plain",
  add_special = 0 "same as special". A source with "pre" lists in "cases" only the texts
  whose case differs from the same vocabulary's own source, as {"INDEX": case}.
"""
import argparse
import concurrent.futures
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import reference_setup

ROOT = Path(__file__).resolve().parent.parent
PRESET_BASES = ["llama-bpe", "qwen2", "gpt-2"]  # real BPE vocabularies the pre names are set on
MODELS = ["llama-2-tiny-random.gguf", "stories260K.gguf", "synth-llama-256-Q4_K_M.gguf"]


def stress_texts():
    """Texts that stress pre-tokenizers, deterministic."""
    t = []
    # digit runs 1..12, alone, after a space / letter, in numbers
    for n in range(1, 13):
        d = "1234567890"[: n] if n <= 10 else "1234567890" + "12"[: n - 10]
        t += [d, " " + d, "a" + d, d + "x", "$" + d, "-" + d + "." + d[::-1]]
    t += ["3.14159", "1,234,567.89", "10000000000 apples", "v1.2.3", "0x1F2E3D", "2024-05-17T12:34:56Z",
          "١٢٣٤٥ ٦٧", "१२३४५६", "½ ¾ ⅞", "𝟘𝟙𝟚", "Ⅻ 12"]
    # contractions in both cases, with ' and ’
    for q in ["'", "\u2019"]:
        for w in ["it{q}s", "don{q}t", "we{q}re", "I{q}ve", "I{q}m", "you{q}ll", "he{q}d", "{q}s", "{q}t {q}re {q}ve {q}m {q}ll {q}d"]:
            s = w.format(q=q)
            t += [s, s.upper(), " " + s, s.title() + " it" + q + "S OK"]
    t += ["'''", "''s", "x'", "' s", "'S'LL'VE", "rock 'n' roll", "O'Neil's"]
    # scripts mixed with Latin
    mixed = ["Hello 世界 abc", "abc世界def", "中文English混合123", "日本語のテキストtext",
             "한국어 text 123", "안녕하세요world", "ภาษาไทย test ทดสอบ", "ไทยabcไทย",
             "مرحبا world 123", "abcمرحباdef", "नमस्ते dunia", "हिन्दीhindi१२३",
             "Ελληνικά kai русский текст", "Привет,мир!", "ÀÉÎÕÜ àéîõü ñ ç", "ﬁ ﬂ ﬀ", "Straße STRASSE",
             "a\u0301e\u0301", "\u00e9 vs e\u0301", "İstanbul ıi", "ǅ ǈ ǋ", "Ａｂｃ１２３", "ｶﾀｶﾅ カタカナ"]
    t += mixed
    # newline and whitespace runs
    ws = ["\n", "\n\n", "\n\n\n", " \n", "\n ", "  ", "   ", "\t", "\t\t", " \t ", "\r\n", "\r\n\r\n",
          "a\nb", "a\n\nb", "a \n b", "a  b", "a   b", "a\t\tb", "  leading", "trailing  ", "x\n\n\n\ny",
          "\u00a0", "a\u00a0b", "a\u3000b", "\u2003\u2003", "a\u200bb", "\v\f", " \n\n ", "\n\n\n\n\n\n\n\n"]
    t += ws
    # punctuation and symbol runs, ~ included
    sym = ["~", " ~", "~~~", "~_H", "a~b", "~/path/to", " ~~ ", "!!!", "...", "?!", "$$$", "+=-", "<=>",
           "^^", "``", "||", "@#$%^&*()", "--->", "<<>>", "{}[]()", "\\n", "a_b_c", "__init__", "©®™", "€£¥",
           "±×÷", "→←↑↓", "…", "—–-", "“quoted” «guillemets»", "¿¡", "§¶", "°C", "•·", "x²+y³", "∑∫√∞",
           "~$+<=>^`|", " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"]
    t += sym
    # emoji with ZWJ and modifiers
    t += ["👨‍👩‍👧‍👦", "🏳️‍🌈", "👍🏽", "Hi 😀!", "😀😀😀", "🇺🇸🇫🇷", "❤️", "a🦀b", " 🤖 robot", "👩🏾‍💻 codes",
          "1️⃣ #️⃣"]
    # code
    t += ["def f(x):\n    return x**2\n", "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}",
          "if x != None and y >= 10:\n        pass", "#include <stdio.h>\nint main() { printf(\"%d\\n\", 42); }",
          "const f = (a, b) => a ?? b;", "SELECT * FROM t WHERE id = 1;", "<div class=\"x\">&nbsp;</div>",
          "  \"key\": [1, 2, 3],\n  \"k2\": null", "fn main() -> Result<(), Box<dyn Error>> {}", "x = y  # comment",
          "$ ls -la ~/src | grep '.cpp'", "a[i+1]=b[j-1]*c;", "    \n    \n", "\t\tif (x) {\n\t\t\ty();\n\t\t}"]
    # special-token texts (parse_special)
    t += ["<s>", "</s>", "<s>Hello</s>", "<unk>", "<|endoftext|>", "Hi<|endoftext|>there", "[CLS] x [SEP]",
          "<|begin_of_text|>Hello", "<|im_start|>user\nHi<|im_end|>", "<pad><mask>", "<|eot_id|>", "<bos>x<eos>",
          "<start_of_turn>user", "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>", " <s> ", "<0x0A>"]
    # random mixtures of the pieces above
    rng = random.Random(14)
    pool = mixed + ws + sym + ["the", " quick", "Brown", "FOX", "'s", "’LL", "123", "4567890", "9", "x", "é",
                               "ü", "中", "한", "ก", "ع", "क", "😀", "👨‍👩‍👧", "<s>", "\n", " ", "  ", "~"]
    for _ in range(500):
        t.append("".join(rng.choice(pool) for _ in range(rng.randint(2, 10))))
    t += ["", " ", "Hello world", " Hello world", "Hello World", "HELLO WORLD!", "hello   world", "Hello\nworld"]
    seen, out = set(), []
    for s in t:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def pre_names(src):
    text = (src / "src" / "llama-vocab.cpp").read_text()
    names = []
    for n in re.findall(r'tokenizer_pre\s*==\s*"([^"]*)"', text):
        if n not in names:
            names.append(n)
    return names


def build_driver(src, bindir, release, out):
    cmd = ["g++", "-O2", "-std=c++17", f"-I{src}/include", f"-I{src}/ggml/include",
           str(ROOT / "scripts" / "reference" / "llama_tokenize_vectors.cpp"), "-o", str(out), f"-L{bindir}",
           f"-l:libllama.{release}.so", f"-l:libggml.{release}.so", "-l:libggml-base.so", f"-Wl,-rpath,{bindir}"]
    subprocess.run(cmd, check=True)


def run_driver(driver, bindir, model, texts_file, n):
    env = dict(os.environ, NLC_BINDIR=str(bindir), GGML_NO_BACKTRACE="1")
    p = subprocess.run([str(driver), str(model), str(texts_file)], env=env, capture_output=True, text=True, check=True)
    if p.stdout.startswith("load error"):
        return None
    cases = [[None, None, None] for _ in range(n)]
    for line in p.stdout.splitlines():
        parts = line.split()
        i, m = int(parts[0]), int(parts[1])
        if parts[2] in ("abort", "error"):
            cases[i][m] = parts[2]
        else:
            cases[i][m] = [int(x) for x in parts[3:]]
    for i, c in enumerate(cases):
        if None in c:
            raise SystemExit(f"{model}: no answer for text {i}")
    return cases


def compact(case):
    plain, sp, add = case
    return [plain, 0 if sp == plain else sp, 0 if add == sp else add]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gguf", default=str(ROOT / "build" / "gguf"), help="our gguf CLI (writes the copies)")
    ap.add_argument("--out", default=str(ROOT / "tests" / "vocab" / "data" / "llama-vectors.jsonl.gz"))
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    ref = reference_setup.locate()
    src, bindir, data, release = ref.src, ref.bindir, ref.data, ref.release()
    texts = stress_texts()
    tmp = Path(tempfile.mkdtemp(prefix="tokvec-"))
    try:
        driver = tmp / "llama_tokenize_vectors"
        build_driver(src, bindir, release, driver)
        texts_file = tmp / "texts.bin"
        texts_file.write_bytes(b"".join(s.encode() + b"\0" for s in texts))

        vocabs = sorted(p.relative_to(data).as_posix() for p in (data / "vocab").glob("*.gguf"))
        vocabs += [f"models/{m}" for m in MODELS if (data / "models" / m).exists()]
        jobs = [(v, None, data / v) for v in vocabs]
        for base in PRESET_BASES:
            rel = f"vocab/ggml-vocab-{base}.gguf"
            for name in pre_names(src):
                copy = tmp / f"{base}.{name}.gguf"
                shutil.copyfile(data / rel, copy)
                subprocess.run([args.gguf, "set", str(copy), "tokenizer.ggml.pre", name], check=True)
                jobs.append((rel, name, copy))

        def work(job):
            rel, pre, path = job
            return rel, pre, run_driver(driver, bindir, path, texts_file, len(texts))

        with concurrent.futures.ThreadPoolExecutor(args.j) as ex:
            results = list(ex.map(work, jobs))
        own = {rel: cases for rel, pre, cases in results if pre is None}
        lines = [json.dumps({"llama.cpp": release, "texts": texts,
                             "modes": ["plain", "parse_special", "add_special+parse_special"]}, ensure_ascii=False)]
        n_cases = 0
        for rel, pre, cases in results:
            rec = {"vocab": rel, "pre": pre, "load": cases is not None}
            if cases is not None:
                if pre is None:
                    rec["cases"] = [compact(c) for c in cases]
                else:
                    base = own[rel]
                    rec["cases"] = {str(i): compact(c) for i, c in enumerate(cases) if c != base[i]}
                n_cases += len(cases) * 3
            lines.append(json.dumps(rec, separators=(",", ":"), ensure_ascii=False))
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with gzip.GzipFile(out, "wb", mtime=0, compresslevel=9) as f:
            f.write(("\n".join(lines) + "\n").encode())
        print(f"llama.cpp {release}: {len(jobs)} sources ({len(vocabs)} vocabularies, "
              f"{len(jobs) - len(vocabs)} pre settings), {len(texts)} texts, {n_cases} cases -> {out} "
              f"({out.stat().st_size} bytes)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
