"""Generate ``fixtures/semantics/cases.json``: tool specs run through the REAL gptel and
llm conversion code in ``emacs --batch``.

The real, unmodified gptel 0.9.9.5 and llm 0.31.1 (``PLISTSPEC_ELISP_DEPS``) run every
case in one ``emacs --batch`` per Emacs version, through the glue
``tests/real_tool_json.el`` (``gptel-make-tool`` then ``gptel--parse-tools`` of a Chat
Completions and an Anthropic backend; ``llm-make-tool`` then ``llm-openai--build-tools``).
This script writes the case table: each case's Elisp text and what the real code
returned on Emacs 28 (the JSON it serialized, parsed, or the error it signalled), with
an ``emacs30`` entry where Emacs 30 differs. ``test_tables_real.py`` re-runs the
libraries on every case. Run: ``python tests/lower/gen_semantics.py``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from real_tool_json import generate, llm_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "fixtures" / "semantics" / "cases.json"

NAMES = [
    '"loc"',
    '""',
    None,
    ":loc",
    "sym",
    "5",
    "nil",
    '"a b"',
    '":x"',
    '"héllo"',
    '"loc"',
    '"unit"',
]
TYPES = [
    "string",
    '"string"',
    ":string",
    "nil",
    "t",
    "object",
    '"object"',
    '"Object"',
    ":object",
    "'string",
    "[string null]",
    '["string" "null"]',
    None,
    "float",
    "integer",
    "array",
    "number",
]
EXTRAS = [
    ':description "d"',
    ':description ""',
    ':description: "typo"',
    ':enum ["a" "b"]',
    ':enum ("a" "b")',
    ":enum [a b]",
    ":enum []",
    ":enum [:json-false]",
    ":enum [1 2.5 nil :null]",
    ":optional t",
    ":optional nil",
    ":optional :json-false",
    ':required ["x"]',
    ":required nil",
    ":required []",
    ":additionalProperties t",
    ":additionalProperties nil",
    ":additionalProperties :json-false",
    ":properties (:x (:type string) :y (:type integer :minimum 0))",
    ":properties nil",
    ":properties (:x (:type string :additionalProperties t) :additionalProperties (:type string))",
    ":items (:type string)",
    ':items (:type object :properties (:a (:type number)) :required ["a"])',
    ":items (:type :null)",
    ":items (:type foo :x nil :y :json-false :z t :w :null :v :false)",
    ':format "date"',
    ":minimum 0",
    ":maximum 1.5",
    ":default foo",
    ":default nil",
    ':default "x"',
    ":default 0.1",
    ":default 1e20",
    ":default 100000000000000000000",
    ":default 9223372036854775807",
    ":default -9223372036854775808",
    ":default 1.0e+INF",
    ":default 0.0e+NaN",
    ":default 1.5e-7",
    ":anyOf [(:type string) (:type null)]",
    ":anyOf ((:type string))",
    ":const bar",
    ':name "second"',
    ":optional t :optional nil",
    ":type integer",
    ':x "\\xff"',
    ':x "é\\u00e8"',
    ':x "tab\\there \\"q\\" back\\\\slash\\n\\x7f\\^A"',
    ':pattern "^a$"',
    ":items [(:type string)]",
    ":properties [(:type string)]",
    ':properties ("a" "b")',
    ":default (:a 1 :b nil)",
    ":default ((a . 1) (b . 2))",
    ":items (:type string :foo)",
    ":examples [1 [2] (:x 1)]",
    ":additionalProperties t :additionalProperties nil",
    ":x ?a",
    ":x #x10",
    ":x 1.",
    ':format "uri" :format "email"',
    ':items (:type array :items (:type object :properties (:q (:type string :enum ["z"]))))',
    ":properties (:x nil)",
    ":properties (:additionalProperties (:type string) :y (:type integer))",
]


def arg_text(rng: random.Random) -> str:
    parts: list[str] = []
    name = rng.choice(NAMES)
    typ = rng.choice(TYPES)
    extras = rng.sample(EXTRAS, rng.choice([0, 1, 1, 2, 2, 3]))
    if name is not None:
        parts.append(f":name {name}")
    if typ is not None:
        parts.append(f":type {typ}")
    parts.extend(extras)
    rng.shuffle(parts)
    if rng.random() < 0.05:
        parts.append(":optional")
    elif rng.random() < 0.03:
        parts.append(":foo")
    return "(" + " ".join(parts) + ")"


def tool_text(args: list[str], style: str, name: str = '"t"', desc: str | None = '"d"') -> str:
    if style == "quoted":
        a = "'(" + " ".join(args) + ")"
    elif style == "list":
        a = "(list " + " ".join("'" + x for x in args) + ")"
    elif style == "vector":
        a = "[" + " ".join(args) + "]"
    elif style == "single":
        a = "'" + args[0]
    elif style == "nil":
        a = "nil"
    else:
        a = None
    slots = [f":name {name}"]
    if desc is not None:
        slots.append(f":description {desc}")
    if a is not None:
        slots.append(f":args {a}")
    return "(gptel-make-tool " + " ".join(slots) + ")"


FIXED = [
    # §1 / §4 tool level
    tool_text([], "absent"),
    tool_text([], "nil"),
    tool_text([], "vector"),
    tool_text(['(:name "a" :type string)'], "quoted", desc=None),
    tool_text(['(:name "a" :type string)'], "quoted", desc="nil"),
    tool_text(['(:name "a" :type string)'], "quoted", desc="5"),
    tool_text(['(:name "a" :type string)'], "quoted", desc="'foo"),
    tool_text(['(:name "a" :type string)'], "quoted", desc='["x" 1]'),
    tool_text(['(:name "a" :type string)'], "quoted", name="'sym"),
    tool_text(['(:name "a" :type string)'], "quoted", name=":null"),
    tool_text(['(:name "a" :type string)'], "quoted", name='"\\xff"'),
    # §3 / §8 / §9 rows
    tool_text(['(:name "a" :type string)', '(:name "a" :type integer)'], "quoted"),
    tool_text(
        ['(:name "a" :type string :optional t)', '(:name "b" :type string :optional t)'], "quoted"
    ),
    tool_text(['(:name "a" :type string)', '(:name "b")'], "vector"),
    tool_text(['(:name "a" :type string)'], "single"),
    tool_text(
        [
            '(:name "open" :type object :additionalProperties t :properties (:x (:type string)) :required ["x"])'
        ],
        "list",
    ),
    tool_text(
        ['(:name "obj" :type object :properties (:x (:type string)) :anyOf [(:required ["x"])])'],
        "list",
    ),
    tool_text(["(:name :loc :type string :optional t)"], "quoted"),
    tool_text(["(:name :loc :type string)"], "quoted"),
    tool_text(["(:name 5 :type string)"], "quoted"),
    tool_text(["(:type string)", "nil"], "quoted"),
    tool_text(['(:name "a" :type object :required nil)'], "quoted"),
    tool_text(['(:name "a" :type string :optional)'], "quoted"),
    tool_text(['(:name "a" :type)'], "quoted"),
    tool_text(['(:name "a" :type string :optional t :optional nil :name "b")'], "quoted"),
    tool_text(
        [
            '(:name "a" :type object :properties (:p (:type object :properties (:q (:type string)))))'
        ],
        "quoted",
    ),
]


#: extras and names neither library fails on (for cases that exercise the output)
SAFE_NAMES = ['"loc"', '""', None, '"a b"', '":x"', '"héllo"', '"loc"', '"unit"']
SAFE_TYPES = [
    "string",
    ":string",
    "nil",
    "t",
    "object",
    "float",
    "integer",
    "array",
    "number",
    "boolean",
]
SAFE_EXTRAS = [
    e
    for e in EXTRAS
    if not any(
        bad in e
        for bad in (
            '("a"',
            "[a b]",
            "[:json",
            "foo",
            "INF",
            "NaN",
            "1000000000000000",
            "((",
            ":const bar",
            "\\xff",
            "[string",
            "'string",
            ":foo)",
            '("a',
            "[(:type string)]",
        )
    )
]


def safe_arg_text(rng: random.Random) -> str:
    parts: list[str] = []
    name = rng.choice(SAFE_NAMES)
    if name is not None:
        parts.append(f":name {name}")
    parts.append(f":type {rng.choice(SAFE_TYPES)}")
    parts.extend(rng.sample(SAFE_EXTRAS, rng.choice([1, 2, 3, 4])))
    rng.shuffle(parts)
    return "(" + " ".join(parts) + ")"


def build_cases(n_random: int = 360, n_safe: int = 300, seed: int = 20250901) -> list[str]:
    rng = random.Random(seed)
    cases = list(FIXED)
    for _ in range(n_random):
        k = rng.choice([1, 1, 2, 2, 3])
        args = [arg_text(rng) for _ in range(k)]
        style = rng.choice(["quoted", "quoted", "list", "list", "vector", "single"])
        cases.append(tool_text(args, style))
    for _ in range(n_safe):
        k = rng.choice([1, 2, 2, 3, 4])
        args = [safe_arg_text(rng) for _ in range(k)]
        cases.append(tool_text(args, rng.choice(["quoted", "list"])))
    return cases


def main() -> None:
    table = generate([(text, llm_text(text)) for text in build_cases()])
    doc = {
        "about": (
            "Ground truth: each `elisp` tool form (gptel-make-tool; the llm results are for "
            "the same text with llm-make-tool) evaluated with the real gptel 0.9.9.5 and "
            "llm 0.31.1 (tests/real_tool_json.el): gptel--parse-tools (openai = the generic "
            "OpenAI-family method, of a Chat Completions backend; anthropic = gptel-anthropic's) "
            "serialized by gptel--json-encode, and llm-openai--build-tools serialized by "
            "json-serialize, in Emacs 28.2 --batch. `json` is the tools array Emacs produced "
            "(parsed), `error` the signal; `emacs30` holds the families Emacs 30.1 sends or "
            "signals differently (`json_text`: the JSON text, where an object repeats a key). "
            "Produced by tests/lower/gen_semantics.py; tests/lower/test_tables_real.py holds "
            "it to the real libraries."
        ),
        "cases": table,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(table)} cases written to {OUT}")


if __name__ == "__main__":
    main()
