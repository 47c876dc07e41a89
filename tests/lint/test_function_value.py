"""PS338 (``:function`` that is not a function) against the real gptel 0.9.9.5 and llm 0.31.1.

``check`` reports exactly the tools the libraries cannot make or cannot call: a bare symbol
the file never binds (loading signals ``void-variable``), the value of ``format`` (loading
signals ``void-variable who``), a string or a number (the model's call of the tool fails
with ``invalid-function`` inside the library's own tool execution,
``tests/pyfunc/drive_libraries.el``); and none of the right ones (``#'NAME``, a variable
the file binds to a function, a lambda bound by ``let``, a quoted spec plist handed to
``apply``, where the symbol is already the function). The fix ``#'NAME`` is offered where
the file defines NAME, and ``check --fix`` applies it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from plistspec.checking.checker import check_text
from plistspec.elisp.printer import print_string
from support import elisp_deps_preamble

sys.path.insert(0, str(Path(__file__).parents[1] / "pyfunc"))
from responses import response  # noqa: E402 (tests/pyfunc's canned provider responses)

DRIVER = Path(__file__).parents[1] / "pyfunc" / "drive_libraries.el"
ARGS = {
    "gptel": '(list \'(:name "who" :type string :description "Who"))',
    "llm": '\'((:name "who" :type string :description "Who"))',
}
PRELUDE = (
    ";;; -*- lexical-binding: t -*-\n"
    '(defun my-greet (who) (format "Hello %s" who))\n'
    "(defvar my-greeter #'my-greet)\n"
    "(defun my-handler () (lambda (who) (my-greet who)))\n"
)

# (name, :function, what happens: "load" fails at load (void-variable), "load-wna" too
#  (wrong-number-of-arguments), "call" fails when called, or the result of a call with
#  who = "x")
CASES = [
    ("bare", "my-greet", "load"),
    ("format", '(format "Hello %s" who)', "load"),
    ("owncall", "(my-greet)", "load-wna"),
    ("handler", "(my-handler)", "Hello x"),
    ("string", '"my-greet"', "call"),
    ("number", "42", "call"),
    ("quoted", "#'my-greet", "Hello x"),
    ("var", "my-greeter", "Hello x"),
    ("lambda", '(lambda (who) (concat "Hi " who))', "Hi x"),
]


def _tool(lib: str, name: str, fn: str) -> str:
    head = "gptel-make-tool" if lib == "gptel" else "llm-make-tool"
    return f'({head} :name "{name}" :description "Greet."\n :function {fn}\n :args {ARGS[lib]})\n'


def _flagged(text: str) -> set[str]:
    lines = text.split("\n")
    out = set()
    for d in check_text(text, "f.el"):
        if d.code == "PS338":
            assert d.severity == "error"
            out.add(next(ln for ln in reversed(lines[: d.line]) if ":name" in ln).split('"')[1])
    return out


def test_check_flags_exactly_what_is_not_a_function() -> None:
    text = PRELUDE + "".join(
        _tool(lib, f"{lib}_{n}", fn) for lib in ("gptel", "llm") for n, fn, _ in CASES
    )
    # bound by let, a spec plist's symbol (a value: the function itself), dash's `it`
    text += "(let ((f (lambda (who) who))) " + _tool("gptel", "let_ok", "f") + ")\n"
    text += '(apply #\'gptel-make-tool \'(:name "spec_ok" :description "d" :function my-greet))\n'
    text += "(--map " + _tool("gptel", "it_ok", "it") + " xs)\n"
    text += "(pcase x (`(,fn) " + _tool("gptel", "pcase_ok", "fn") + "))\n"
    text += "(let-alist x " + _tool("gptel", "alist_ok", ".fn") + ")\n"
    text += "(dolist (g (list #'my-greet)) " + _tool("gptel", "dolist_ok", "g") + ")\n"
    text += "(defun mk (h) " + _tool("gptel", "param_ok", "h") + ")\n"
    bad = ("load", "load-wna", "call")
    want = {f"{lib}_{n}" for lib in ("gptel", "llm") for n, _, w in CASES if w in bad}
    assert _flagged(text) == want


def test_the_fix_names_the_function_of_the_file() -> None:
    text = PRELUDE + _tool("gptel", "a", "my-greet") + _tool("gptel", "b", '"my-greet"')
    text += _tool("gptel", "c", "no-such-fn") + _tool("gptel", "d", "(my-greet)")
    diags = [d for d in check_text(text, "f.el") if d.code == "PS338"]
    assert len(diags) == 4
    a, b, c, d = diags
    assert d.fix is not None and d.fix.replacement == "#'my-greet"
    assert "wrong-number-of-arguments" in d.message
    assert a.fix is not None and a.fix.replacement == "#'my-greet"
    assert "void-variable my-greet" in a.message and "defined in this file" in a.message
    assert b.fix is not None and b.fix.replacement == "#'my-greet"
    assert c.fix is None and "void-variable no-such-fn" in c.message


@pytest.mark.slow
def test_check_fix_writes_the_sharp_quote(tmp_path) -> None:
    f = tmp_path / "t.el"
    f.write_text(PRELUDE + _tool("gptel", "a", "my-greet"), encoding="utf-8")
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "check", "--fix", str(f)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert ":function #'my-greet\n" in f.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.emacs
@pytest.mark.parametrize("lib", ["gptel", "llm"])
def test_the_real_libraries_fail_where_check_says(emacs, elisp_deps_dir, tmp_path, lib) -> None:
    transport = "openai" if lib == "gptel" else "openai-compatible"
    # load-time failures: each file alone, loaded as Emacs loads it
    for name, fn, want in CASES:
        path = tmp_path / f"{name}.el"
        path.write_text(PRELUDE + f"(require '{lib})\n" + _tool(lib, name, fn), encoding="utf-8")
        program = (
            elisp_deps_preamble(elisp_deps_dir)
            + f'(princ (condition-case e (progn (load {print_string(str(path))} nil t) "loaded")'
            + ' (error (format "%S" (car e)))))\n'
        )
        got = emacs.run(program, timeout=120).strip()
        expect = {"load": "void-variable", "load-wna": "wrong-number-of-arguments"}
        assert got == expect.get(want, "loaded"), (name, got)
    # the rest: loaded, then called by the library's own tool execution
    loadable = [(n, fn, w) for n, fn, w in CASES if not w.startswith("load")]
    path = tmp_path / "tools.el"
    path.write_text(PRELUDE + "".join(_tool(lib, n, fn) for n, fn, _ in loadable), "utf-8")
    runs = [
        (lib, transport, n, response(lib, transport, n, json.dumps({"who": "x"})))
        for n, _, _ in loadable
    ]
    vec = " ".join("(vector " + " ".join(print_string(x) for x in r) + ")" for r in runs)
    program = (
        elisp_deps_preamble(elisp_deps_dir)
        + f"(load {print_string(str(DRIVER))} nil t)\n"
        + f"(ps-load-tools {print_string(str(path))})\n"
        + f"(ps-run-all (vector {vec}))\n"
    )
    got = json.loads(emacs.run(program, timeout=300))
    for (name, _, want), result in zip(loadable, got, strict=True):
        if want == "call":
            assert "invalid-function" in result, (name, result)
        else:
            assert result == want, (name, result)
