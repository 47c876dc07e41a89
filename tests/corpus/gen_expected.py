"""Generate ``fixtures/corpus/expected.json``: what the REAL gptel and llm send for every
tool of ``fixtures/corpus/*.el`` that plistspec reads statically.

Each tool is rebuilt in ``emacs --batch`` from its statically read slots, printed back as
quoted data (``:function`` replaced by ``#'ignore``), and run through the real
conversion code of the real gptel 0.9.9.5 and llm 0.31.1 (``PLISTSPEC_ELISP_DEPS``)
through ``tests/real_tool_json.el`` (gptel's generic (OpenAI family) and Anthropic
``gptel--parse-tools``, llm's ``llm-openai--build-tools``), on Emacs 28 with an
``emacs30`` entry where Emacs 30 differs (see ``tests/lower/gen_semantics.py``). That the
static values are what Emacs computes is checked separately (``test_corpus.py``);
``tests/lower/test_tables_real.py`` re-runs the libraries on every row.

A call of a pass-through wrapper defined in the fixture (``extract.file_wrappers``) is
not rebuilt from plistspec's reading of the wrapper: the wrapper definitions themselves
are evaluated, then the call with its own slots (static values, quoted), so what the real
constructor receives is decided by Emacs (leading pairs, which occurrence wins). The
gptel results use the definitions with every ``llm-make-tool`` renamed ``gptel-make-tool``,
the llm ones the reverse.
Run: ``python tests/corpus/gen_expected.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from plistspec.elisp.datum import List, Symbol  # noqa: E402
from plistspec.elisp.printer import print_datum  # noqa: E402
from plistspec.elisp.reader import read_all  # noqa: E402
from plistspec.extract import file_wrappers, find_tools  # noqa: E402
from real_tool_json import generate, llm_text  # noqa: E402

FIXTURES = ROOT / "fixtures" / "corpus"
OUT = FIXTURES / "expected.json"


def tool_text(form) -> str | None:
    """``(gptel-make-tool :name 'N ...)`` from the first value of each sent slot."""
    first: dict = {}
    for s in form.slots:
        first.setdefault(s.key.name, s)
    parts = []
    for key in (":name", ":description", ":args"):
        s = first.get(key)
        if s is None:
            continue
        if s.value is None:
            return None
        parts.append(f"{key} '{print_datum(s.value)}")
    return "(gptel-make-tool " + " ".join(parts) + " :function #'ignore)"


_DEFINERS = ("defun", "cl-defun", "defsubst", "cl-defsubst", "defmacro", "cl-defmacro")


def wrapper_texts(form, datums, text: str) -> tuple[str, str] | None:
    """(gptel text, llm text): the file's wrapper definitions, then the call as written
    with each of its own slots quoted from its static value."""
    wrappers = file_wrappers(datums)
    if form.head not in wrappers:
        return None
    defs = [
        text[d.start : d.end]
        for d in datums
        if isinstance(d, List)
        and d.items
        and isinstance(d.items[0], Symbol)
        and d.items[0].name in _DEFINERS
        and isinstance(d.items[1], Symbol)
        and d.items[1].name in wrappers
    ]
    parts = []
    for s in form.slots:
        if not form.start <= s.key.start < form.end:
            continue  # a leading pair of the wrapper: Emacs adds it
        if s.key.name == ":function":
            parts.append(":function #'ignore")
        elif s.value is None:
            return None
        else:
            parts.append(f"{s.key.name} '{print_datum(s.value)}")
    body = "(progn " + " ".join(defs) + f" ({form.head} " + " ".join(parts) + "))"
    return body.replace("llm-make-tool", "gptel-make-tool"), body.replace(
        "gptel-make-tool", "llm-make-tool"
    )


def main() -> None:
    keys: list[tuple[str, int]] = []
    cases: list[str] = []
    wkeys: list[tuple[str, int]] = []
    wcases: list[tuple[str, str]] = []
    for path in sorted(FIXTURES.glob("*.el")):
        text = path.read_text(encoding="utf-8")
        datums = read_all(text)
        forms, _ = find_tools(datums, text)
        for i, form in enumerate(forms):
            w = wrapper_texts(form, datums, text)
            if w is not None:
                wkeys.append((path.name, i))
                wcases.append(w)
                continue
            if form.head in file_wrappers(datums):
                continue
            t = tool_text(form)
            if t is not None:
                keys.append((path.name, i))
                cases.append(t)
    table = generate([(t, llm_text(t)) for t in cases] + wcases)
    out = []
    for (name, i), rec in sorted(zip(keys + wkeys, table, strict=True), key=lambda r: r[0]):
        row = {"file": name, "index": i, "elisp": rec["elisp"]}
        for fam in ("openai", "anthropic", "llm", "emacs30"):
            if fam in rec:
                row[fam] = rec[fam]
        out.append(row)
    doc = {
        "about": "Real gptel (openai, anthropic families) and llm (llm-openai-compatible) "
        "output for each statically read tool of fixtures/corpus/*.el, by file and index "
        "in find_tools order (`emacs30`: where Emacs 30 differs); generated by "
        "tests/corpus/gen_expected.py.",
        "cases": out,
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(out)} tools -> {OUT}")


if __name__ == "__main__":
    main()
