#!/usr/bin/env python3
"""Prints {"name": "vocab/FILE", "source": ""} for every vocabulary file of DATA/vocab that has
no tokenizer.chat_template, for scripts/record-chat-llamacpp.sh (llama-server then renders its
default chatml).

    scripts/vocab_without_template.py DATA_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jinja_fuzz_seeds import gguf_chat_template  # noqa: E402

vocab = os.path.join(sys.argv[1], "vocab")
for name in sorted(os.listdir(vocab)):
    if name.endswith(".gguf") and gguf_chat_template(os.path.join(vocab, name)) is None:
        print(json.dumps({"name": "vocab/" + name, "source": ""}))
