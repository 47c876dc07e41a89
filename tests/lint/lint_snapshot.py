"""The lint snapshot: every diagnostic :func:`plistspec.lint.lint` gives on a fixed corpus.

Owns: the corpus (every ``fixtures/**/*.el``, a form of edge cases for the provider
walk, a generated file and the same file with seeded mutations that trip most spec and
provider lints), the run (each tool form
lowered and linted with no target and with every check target, under its own library
and under each dialect override) and the JSON form of the result. ``test_snapshot.py``
lints the texts stored in the committed ``data/lint_snapshot.json.gz`` again and compares
with the diagnostics stored next to them, so any change in a diagnostic's code, severity,
message, span, fix or order shows up (and edits of the fixtures do not move it).

Regenerate (only when a lint's output is meant to change, and say so in the commit):
``PYTHONPATH=src python3 tests/lint/lint_snapshot.py --write``. The committed snapshot
was first made by the lints as they stood before the speed work of issue 11.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = Path(__file__).resolve().parent / "data" / "lint_snapshot.json.gz"

# (pattern, replacements): each match is replaced, with probability 1/4, by one of the
# replacements (chosen by the seeded generator). Backreferences as in re.sub.
_MUTATIONS: list[tuple[str, list[str]]] = [
    (
        r":type string",
        [
            ":type str",
            ':type "string"',
            ":type 'string",
            ':type ["string" "null"]',
            ":type String",
            ':type ["string" text]',
            ':type string :format "uri"',
            ":type string :properties (:a (:type string))",
            ':type string :const "x"',
            ':type string :default "x"',
        ],
    ),
    (
        r":type (number|integer)",
        [
            ":type float",
            ':type ["\\1" "null"]',
            ":type \\1 :minimum nil",
            ':type \\1 :format "float"',
            ":type [\\1]",
            ":type \\1 :exclusiveMinimum 0 :multipleOf 2",
        ],
    ),
    (
        r":type boolean",
        [":type bool", ":type :boolean", ":type boolean :enum [t :json-false]", ":typ boolean"],
    ),
    (
        r":type array",
        [
            ":type array :minItems nil",
            ":type array :uniqueItems t",
            ":type vector",
            ":type array :prefixItems [(:type string)]",
        ],
    ),
    (
        r":type object",
        [
            ":type object :additionalProperties t",
            ":type object :additionalProperties :json-false",
            ":type object :required nil",
            ':type object :required ["nope" 3]',
            ':type object :required ("a")',
            ':type object :propertyOrdering ["a"]',
        ],
    ),
    (
        r":optional t",
        [
            ":required t",
            ":required nil",
            ":optional nil",
            ":optional :json-false",
            ":optional 1",
            ":mandatory t",
            ":optional t :optional t",
            ":optional",
        ],
    ),
    (
        r":description \"",
        [':desc "', ':description: "', ':doc "', ':help "', ':description nil :x "'],
    ),
    (
        r":name \"([a-z_0-9]+)\"",
        [
            ':name "\\1 bad"',
            ":name :\\1",
            ":name \\1",
            ':name ""',
            ":name nil",
            ':name "9\\1.x"',
            ':name "\\1" :name "dup"',
            ':name "callback"',
        ],
    ),
    (
        r":enum \[",
        [":enum [foo ", ":enum [1 ", ":enum [:null ", ":enum (", ":values ["],
    ),
    (
        r":items \(",
        [":items (:type string) :contains (", ":items ((:type string) ", ":itemz ("],
    ),
    (
        r":properties \(",
        [
            ":properties (:additionalProperties (:type string) ",
            ":properties (:a nil :b 3 ",
            ":props (",
            ':properties ("a" (:type string) ',
        ],
    ),
    (
        r":function ",
        [":functon ", ":function nil :fn "],
    ),
    (
        r":async t",
        [":async t :args nil", ":async 1"],
    ),
]


def mutate(text: str, seed: int = 7) -> str:
    """``text`` with a seeded quarter of each pattern's matches rewritten."""
    rng = random.Random(seed)
    for pattern, replacements in _MUTATIONS:

        def one(m: re.Match[str], replacements: list[str] = replacements) -> str:
            if rng.random() >= 0.25:
                return m.group(0)
            return m.expand(rng.choice(replacements))

        text = re.sub(pattern, one, text)
    return text


# Shapes the provider walk may skip or must not skip (quiet leaves, arrays of them, the
# same with one thing a provider rule reads): one tool per arg, so that an arg the
# library fails on does not hide the others.
_EDGE_ARGS = [
    '(:name "a" :type array :description "d" :items (:type string))',
    '(:name "b" :type array :description "d")',
    '(:name "c" :type array :items [(:type string)])',
    '(:name "d" :type array :items (:type array :items (:type string)))',
    '(:name "e" :type array :items (:type string :enum ["x" 1]))',
    '(:name "f" :type array :items (:type object))',
    '(:name "g" :type array :items (:type string :format "uri"))',
    '(:name "h" :type array :enum ["a"] :items (:type integer :default 1))',
    '(:name "i" :type string :enum ["x" "y"])',
    '(:name "j" :type ["string" "null"] :description "d")',
    '(:name "k" :type object :description "d")',
    """(:name "l" :type object :properties (:m (:type array :items (:type number))
                                        :bad-name (:type string)
                                        :n (:anyOf [(:type string) (:type null)])
                                        :o (:type array :items (:anyOf [(:type string)]))
                                        :p (:type string :const "c")))""",
    '(:name "q" :type array :items (:type array :items (:type array :items (:type object))))',
    '(:name "r" :type array :items (:type string :description "s" :title "t"))',
    '(:name "s" :type integer :minimum 0)',
    '(:name "t" :type array :items (:type null))',
    '(:name "u" :type string :enum [])',
    '(:name "v" :enum ["only" "enum"])',
    '(:name "w" :type object :properties (:x (:type array :items (:type string :enum [a]))))',
    '(:name "y" :type array :items (:type boolean) :optional t)',
]


def _edges(head: str) -> str:
    return "".join(
        f'({head} :name "edge_{i}" :description "Edge {i}." :function #\'ignore\n'
        f" :args (list '{arg}))\n"
        for i, arg in enumerate(_EDGE_ARGS)
    )


def corpus() -> list[tuple[str, str]]:
    """(name, text) of every input the snapshot covers."""
    sys.path.insert(0, str(ROOT / "bench"))
    from gen_tools import generate

    out = [
        (str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "fixtures").rglob("*.el"))
    ]
    gen = generate(60_000, seed=3)[0]
    out.append(("edges:gptel", _edges("gptel-make-tool")))
    out.append(("edges:llm", _edges("llm-make-tool")))
    out.append(("generated:60K:3", gen))
    for seed in (1, 2, 3):
        out.append((f"mutated:60K:3:{seed}", mutate(gen, seed)))
    return out


def _diag(d) -> list:
    fix = [d.fix.start, d.fix.end, d.fix.replacement] if d.fix is not None else None
    return [d.code, d.severity, d.message, d.start, d.end, fix]


def run(inputs: list[tuple[str, str]] | None = None) -> dict[str, dict]:
    """Input name → its text and, per tool form, [form start, {run key: diagnostics}].

    ``inputs`` defaults to :func:`corpus`; the test passes the texts stored in the
    snapshot, so later edits of the fixtures do not move it."""
    from plistspec.core.formats import TARGETS
    from plistspec.elisp.recover import read_recovering
    from plistspec.extract import find_tools
    from plistspec.lint import lint
    from plistspec.replay import lower

    out: dict[str, dict] = {}
    for name, text in inputs if inputs is not None else corpus():
        datums, _ = read_recovering(text)
        forms, _ = find_tools(datums, text)
        rows = []
        for form in forms:
            runs: dict[str, list] = {}
            for dialect in (None, "gptel", "llm"):
                try:
                    tool, _ = lower(form, dialect, name)
                except Exception:  # noqa: BLE001 - lint then works from the form alone
                    tool = None
                for target in (None, *TARGETS):
                    key = f"{dialect or '-'}/{target or '-'}"
                    try:
                        got = [_diag(d) for d in lint(form, tool, target, dialect=dialect)]
                    except Exception as e:  # noqa: BLE001 - record it: it must not change
                        got = [["raised", type(e).__name__, str(e)]]
                    runs[key] = got
            rows.append([form.start, runs])
        out[name] = {"text": text, "forms": rows}
    return out


def load() -> dict[str, dict]:
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as f:
        return json.load(f)


def write(data: dict[str, dict]) -> None:
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    with gzip.GzipFile(SNAPSHOT, "wb", mtime=0) as f:
        f.write(raw.encode("utf-8"))


if __name__ == "__main__":
    data = run()
    n = sum(len(ds) for v in data.values() for _s, runs in v["forms"] for ds in runs.values())
    forms = sum(len(v["forms"]) for v in data.values())
    if "--write" in sys.argv:
        write(data)
        print(f"wrote {SNAPSHOT} ({len(data)} inputs, {forms} forms, {n} diagnostics)")
    else:
        old = load()
        same = run([(k, v["text"]) for k, v in old.items()]) == old
        print(
            f"{len(data)} inputs, {forms} forms, {n} diagnostics; snapshot {'same' if same else 'DIFFERS'}"
        )
        sys.exit(0 if same else 1)
