"""A wrong and a right example for every diagnostic code (what ``plistspec explain``
prints after the explanation, as ``ruff rule`` does, and what docs/codes.md lists).

Owns: :data:`EXAMPLES`, code → :class:`Example`, read from ``grammars/code-examples.toml``
(one ``[CODE]`` table per code; its header says each key), and how an example is shown
(:func:`render_example`) and run (:func:`as_elisp`). An example's ``kind`` says what its
text is: ``tool`` (a whole Elisp text), ``arg`` (one arg plist of a ``gptel-make-tool``
form; ``arg-llm``: of an ``llm-make-tool`` form), ``json``, ``python``, ``toml`` or
``shell``; ``target`` is the ``check --target`` (or ``-f``) it needs and ``via`` what
reports the code. The tests run every Elisp example, and every JSON example lowered
(``via="lower"``), through its ``via``: the wrong one gets its code, the right one does not.

TOML (read by the pure-Python :mod:`tomllib`, about 5 ms) because its literal strings show
Elisp and JSON as written, across lines; only ``explain``, docs/gen_codes.py and the tests
read it, never ``check``.
"""

from __future__ import annotations

import tomllib
from typing import NamedTuple

from plistspec.core.grammars import grammar_path

__all__ = ["Example", "EXAMPLES", "as_elisp", "render_example"]


class Example(NamedTuple):
    wrong: str
    right: str
    kind: str = "arg"
    target: str | None = None
    # what reports the code: check, fmt, to-json (-t target) or lower (to-json -t
    # target --lower: the Elisp, or for kind json the tool JSON, lowered for the target)
    via: str = "check"


_F = ":function #'f"
_ND = ':name "t" :description "What it does"'


def _load() -> dict[str, Example]:
    with open(grammar_path("code-examples.toml"), "rb") as f:
        table = tomllib.load(f)
    return {code: Example(**fields) for code, fields in table.items()}


EXAMPLES: dict[str, Example] = _load()


def as_elisp(example_text: str, kind: str) -> str | None:
    """The whole Elisp text an example stands for (None for non-Elisp kinds)."""
    if kind == "tool":
        return example_text + "\n"
    if kind in ("arg", "arg-llm"):
        head = "llm-make-tool" if kind == "arg-llm" else "gptel-make-tool"
        return f"({head} {_ND} {_F}\n :args (list '{example_text}))\n"
    return None


def render_example(code: str) -> str:
    """The "Wrong:" / "Right:" part of ``plistspec explain CODE`` ('' when none)."""
    ex = EXAMPLES.get(code)
    if ex is None:
        return ""
    where = {
        "arg": "an arg of :args",
        "arg-llm": "an arg of an llm-make-tool form",
        "tool": "Emacs Lisp",
        "json": "JSON input of from-json",
        "python": "Python given to from-py",
        "shell": "command line",
        "toml": ".plistspec.toml",
        "text": "Emacs Lisp",
        "call": "a model's tool call, with plistspec-gptel-mode on",
        "setup": "a gptel set-up",
    }.get(ex.kind, ex.kind)
    target = f", with --target {ex.target}" if ex.target else ""
    if ex.via == "lower":  # reported by the lowering stage, not by check --target
        target = f", with to-json -t {ex.target} --lower"

    def block(s: str) -> str:
        return "".join("    " + line + "\n" for line in s.splitlines())

    return f"Wrong ({where}{target}):\n\n{block(ex.wrong)}\nRight:\n\n{block(ex.right)}"
