"""PS337 (a ``:function`` that takes the wrong number of arguments) against the real
libraries: each tool of one file is called by the real gptel 0.9.9.5 and llm 0.31.1,
through their own response parsers and tool execution (``drive_libraries.el``), sync and
``:async``. ``check`` must report PS337 on exactly the tools the libraries fail to call
with ``wrong-number-of-arguments``, and on none of those they call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from responses import response

from plistspec.checking.checker import check_text
from plistspec.elisp.printer import print_string
from support import elisp_deps_preamble

DRIVER = Path(__file__).with_name("drive_libraries.el")

ARG = '\'(:name "{n}" :type string :description "{n}")'


def _tool(lib: str, name: str, fn: str, args: list[str], is_async: bool = False) -> str:
    if lib == "gptel":
        a = "(list " + " ".join(ARG.format(n=n) for n in args) + ")" if args else "nil"
        head = "gptel-make-tool"
    else:
        a = "'(" + " ".join(ARG.format(n=n)[1:] for n in args) + ")" if args else "nil"
        head = "llm-make-tool"
    more = " :async t" if is_async else ""
    return f'({head} :name "{name}" :description "D."{more}\n :function {fn}\n :args {a})\n'


# (name suffix, :function, :args, async, the result a right call gives or None: PS337)
CASES = [
    ("short", '(lambda (a) (format "one %s" a))', ["a", "b"], False, None),
    ("long", '(lambda (a b c) (format "three %s" a))', ["a", "b"], False, None),
    ("right", '(lambda (a b) (format "two %s %s" a b))', ["a", "b"], False, "two x y"),
    ("opt", '(lambda (a &optional b c) (format "opt %s %s" a b))', ["a", "b"], False, "opt x y"),
    ("rest", '(lambda (&rest xs) (format "rest %S" xs))', ["a", "b"], False, 'rest ("x" "y")'),
    ("nocb", '(lambda (a b) (format "%s %s" a b))', ["a", "b"], True, None),
    ("cb", '(lambda (cb a b) (funcall cb (format "cb %s %s" a b)))', ["a", "b"], True, "cb x y"),
    ("sym", "#'ps-arity-two", ["a"], False, None),
    ("symok", "#'ps-arity-two", ["a", "b"], False, "fn x y"),
]


def _file() -> str:
    text = ";;; -*- lexical-binding: t -*-\n"
    text += '(defun ps-arity-two (a b) (format "fn %s %s" a b))\n'
    for lib in ("gptel", "llm"):
        for suffix, fn, args, is_async, _ in CASES:
            text += _tool(lib, f"{lib}_{suffix}", fn, args, is_async)
    return text


def test_check_flags_exactly_the_wrong_arities() -> None:
    text = _file()
    lines = text.split("\n")
    flagged = set()
    for d in check_text(text, "arity.el"):
        if d.code == "PS337":
            # the tool's :name is on the line of its head
            flagged.add(next(ln for ln in reversed(lines[: d.line]) if ":name" in ln).split('"')[1])
    wrong = {f"{lib}_{c[0]}" for lib in ("gptel", "llm") for c in CASES if c[4] is None}
    assert flagged == wrong


@pytest.mark.slow
@pytest.mark.emacs
def test_the_real_libraries_fail_where_check_says(emacs, elisp_deps_dir, tmp_path) -> None:
    path = tmp_path / "arity.el"
    path.write_text(_file(), encoding="utf-8")
    call = json.dumps({"a": "x", "b": "y"})
    runs, wants = [], []
    for lib, transport in (("gptel", "openai"), ("llm", "openai-compatible")):
        for suffix, _fn, args, _is_async, want in CASES:
            name = f"{lib}_{suffix}"
            given = json.dumps({n: v for n, v in json.loads(call).items() if n in args})
            runs.append((lib, transport, name, response(lib, transport, name, given)))
            wants.append((name, want))
    vec = " ".join("(vector " + " ".join(print_string(x) for x in r) + ")" for r in runs)
    program = (
        elisp_deps_preamble(elisp_deps_dir)
        + f"(load {print_string(str(DRIVER))} nil t)\n"
        + f"(ps-load-tools {print_string(str(path))})\n"
        + f"(ps-run-all (vector {vec}))\n"
    )
    got = json.loads(emacs.run(program, timeout=300))
    for (name, want), result in zip(wants, got, strict=True):
        if want is None:  # PS337: the library fails to call it
            assert "wrong-number-of-arguments" in result, (name, result)
        else:
            assert result == want, (name, result)
