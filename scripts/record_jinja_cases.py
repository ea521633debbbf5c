#!/usr/bin/python3
"""Record jinja2's renders of the engine's test cases (tests/chat/data/jinja-cases).

Every `<topic>.cases.json` holds {"context": {...}, "cases": [{"name", "template",
optional "context"}]}. Each template is rendered by Debian's python3-jinja2 in
transformers' environment (apply_chat_template: ImmutableSandboxedEnvironment with
trim_blocks, lstrip_blocks, loopcontrols and the {% generation %} tag; transformers'
tojson filter, raise_exception and strftime_now globals), and the render or the error
is written to `<topic>.expected.json`. tests/chat/test_jinja_cases.cpp replays them.

strftime_now uses SOURCE_DATE_EPOCH (set to 1700000000 here and in the test), as
our engine does, so that the recording is reproducible.

Run with Debian's interpreter (/usr/bin/python3, python3-jinja2):
    /usr/bin/python3 scripts/record_jinja_cases.py
"""
import datetime
import glob
import json
import os
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

EPOCH = "1700000000"
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "tests", "chat", "data", "jinja-cases")


class Generation(Extension):
    """transformers' AssistantTracker, without the tracking: renders its body."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.Scope(body, lineno=lineno)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers' tojson: json.dumps without jinja2's HTML escaping
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    t = datetime.datetime.fromtimestamp(int(os.environ["SOURCE_DATE_EPOCH"]), datetime.timezone.utc)
    return t.strftime(fmt)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render(env, template, context):
    try:
        return {"output": env.from_string(template).render(**context)}
    except Exception as e:  # noqa: BLE001 - every jinja2 failure is a recorded outcome
        return {"error_type": type(e).__name__, "error": str(e)}


def main():
    os.environ["SOURCE_DATE_EPOCH"] = EPOCH
    env = environment()
    total = 0
    for path in sorted(glob.glob(os.path.join(CASES, "*.cases.json"))):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        out = []
        for case in doc["cases"]:
            ctx = dict(doc.get("context", {}))
            ctx.update(case.get("context", {}))
            out.append({"name": case["name"], **render(env, case["template"], ctx)})
        dest = path.replace(".cases.json", ".expected.json")
        with open(dest, "w", encoding="utf-8") as f:
            json.dump({"jinja2": jinja2.__version__, "cases": out}, f, ensure_ascii=False, indent=1)
            f.write("\n")
        total += len(out)
        print(f"{os.path.basename(dest)}: {len(out)} cases", file=sys.stderr)
    print(f"{total} cases recorded with jinja2 {jinja2.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
