"""Generate realistic gptel / llm tool files, 1 KB to 10 MB, with their JSON equivalent.

Owns: the benchmark inputs. Deterministic (seeded): the same size and seed give the same
bytes. Each file is a sequence of ``(gptel-make-tool ...)`` and ``(llm-make-tool ...)``
forms as people write them: comments, ``#'function`` and ``(lambda ...)`` values, args
as ``(list '(...) ...)`` or ``'((...))``, nested ``:properties`` and ``:items``, ``:enum``
vectors, ``:optional t``, descriptions with escapes (``\\"``, ``\\n``, backslash-newline),
non-ASCII text and the occasional ``?c`` character. The JSON file holds the same tools
as plain objects (plists become objects), for a ``json.loads`` baseline.

Usage: ``python bench/gen_tools.py SIZE OUT.el [--seed N]`` (SIZE like 1K, 10M); also
writes ``OUT.json``.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

WORDS = (
    "search read write file buffer query result list items path name value the a of for "
    "return when with user project current directory matching pattern limit number of "
    "lines maximum optional regexp url page content summary weather location city unit "
    "temperature forecast date time zone calendar event note entry tag title body"
).split()
NON_ASCII = ["café", "naïve", "größe", "日本語", "émoji 😀", "Ünïcödé", "—", "“quoted”", "½"]
TYPES = ["string", "integer", "number", "boolean"]


def _sentence(rng: random.Random, lo: int, hi: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice(NON_ASCII))
    s = " ".join(words)
    return s[0].upper() + s[1:] + "."


def _desc(rng: random.Random, lo: int, hi: int) -> tuple[str, str]:
    """(Elisp string literal, its value)."""
    value_parts: list[str] = []
    lit_parts: list[str] = []
    for k in range(rng.randint(1, 3)):
        s = _sentence(rng, lo, hi)
        if rng.random() < 0.15:
            s += ' Use "quotes" and a \\ backslash.'
        lit = s.replace("\\", "\\\\").replace('"', '\\"')
        if k:
            r = rng.random()
            if r < 0.4:
                value_parts.append("\n")
                lit_parts.append("\\n")
            elif r < 0.6:
                value_parts.append(" ")
                lit_parts.append(" \\\n")  # backslash-newline continuation, then a space
                lit = lit  # the continuation drops the newline only
            else:
                value_parts.append("\n")
                lit_parts.append("\n")  # a raw newline
        value_parts.append(s)
        lit_parts.append(lit)
    return '"' + "".join(lit_parts) + '"', "".join(value_parts)


def _ident(rng: random.Random) -> str:
    return "_".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))


def _schema(rng: random.Random, depth: int, indent: str) -> tuple[str, dict]:
    """A property schema plist (without :name): (Elisp text, JSON object)."""
    r = rng.random()
    lit, val = _desc(rng, 3, 10)
    if depth < 3 and r < 0.15:
        props_el, props_js = [], {}
        for _ in range(rng.randint(1, 4)):
            key = _ident(rng)
            sub_el, sub_js = _schema(rng, depth + 1, indent + "  ")
            props_el.append(f":{key} {sub_el}")
            props_js[key] = sub_js
        sep = "\n" + indent + "              "
        el = f"(:type object :description {lit}\n{indent} :properties ({sep.join(props_el)}))"
        return el, {"type": "object", "description": val, "properties": props_js}
    if depth < 3 and r < 0.3:
        item_el, item_js = _schema(rng, depth + 1, indent + "  ")
        el = f"(:type array :description {lit}\n{indent} :items {item_el})"
        return el, {"type": "array", "description": val, "items": item_js}
    t = rng.choice(TYPES)
    if t == "string" and rng.random() < 0.3:
        enum = [_ident(rng) for _ in range(rng.randint(2, 5))]
        el_enum = " ".join(f'"{e}"' for e in enum)
        return (
            f"(:type string :description {lit} :enum [{el_enum}])",
            {"type": "string", "description": val, "enum": enum},
        )
    return f"(:type {t} :description {lit})", {"type": t, "description": val}


def _tool(rng: random.Random, i: int) -> tuple[str, dict]:
    name = f"{_ident(rng)}_{i}"
    dlit, dval = _desc(rng, 6, 25)
    args_el, args_js = [], []
    for _ in range(rng.randint(0, 5)):
        aname = _ident(rng)
        sch_el, sch_js = _schema(rng, 0, "              ")
        opt = rng.random() < 0.3
        body = sch_el[1:-1]
        args_el.append(f'(:name "{aname}" {body}{" :optional t" if opt else ""})')
        args_js.append({"name": aname, **sch_js, **({"optional": True} if opt else {})})
    llm = rng.random() < 0.3
    fn = "my-tools--" + name.replace("_", "-")
    lines = [f";; Tool {i}: {_sentence(rng, 3, 8)}"]
    if llm:
        lines.append("(llm-make-tool")
        lines.append(f" :function #'{fn}")
        lines.append(f' :name "{name}"')
        lines.append(f" :description {dlit}")
        inner = "\n          ".join(args_el)
        lines.append(f" :args '({inner})" if args_el else " :args nil")
        lines.append(" :async nil)")
    else:
        params = " ".join(a["name"].replace("_", "-") for a in args_js)
        chars = " (ignore ?, ?\\s ?\\n ?é)" if rng.random() < 0.2 else ""
        lines.append("(gptel-make-tool")
        lines.append(f' :name "{name}"')
        lines.append(f" :function (lambda ({params})")
        lines.append(f"             ({fn} {params}){chars} ; call the helper")
        lines.append("             )")
        lines.append(f" :description {dlit}")
        if args_el:
            inner = "\n             ".join("'" + a for a in args_el)
            lines.append(f" :args (list {inner})")
        lines.append(f' :category "{rng.choice(WORDS)}"')
        if rng.random() < 0.3:
            lines.append(" :confirm t")
        lines[-1] += ")"
    return "\n".join(lines) + "\n\n", {
        "head": "llm-make-tool" if llm else "gptel-make-tool",
        "name": name,
        "description": dval,
        "args": args_js,
    }


def generate(size: int, seed: int = 1) -> tuple[str, str]:
    """(Elisp text, JSON text) of about ``size`` bytes of Elisp."""
    rng = random.Random(seed)
    parts = [";;; tools.el --- generated tools  -*- lexical-binding: t; coding: utf-8 -*-\n\n"]
    tools = []
    total = len(parts[0].encode())
    i = 0
    while total < size:
        el, js = _tool(rng, i)
        parts.append(el)
        tools.append(js)
        total += len(el.encode())
        i += 1
    parts.append(";;; tools.el ends here\n")
    return "".join(parts), json.dumps(tools, ensure_ascii=False, indent=1)


def parse_size(s: str) -> int:
    mult = {"K": 1000, "M": 1000_000}.get(s[-1].upper(), 1)
    return int(float(s[:-1] if s[-1].upper() in "KM" else s) * mult)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("size")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    el, js = generate(parse_size(a.size), a.seed)
    out = Path(a.out)
    out.write_text(el, encoding="utf-8")
    out.with_suffix(".json").write_text(js, encoding="utf-8")


if __name__ == "__main__":
    main()
