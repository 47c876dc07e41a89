"""End to end in real Emacs: the generated ``:function`` lambdas call Python and return what
the Python function returns, sync and async, for gptel's and llm's calling conventions.

One Emacs run per test: every case is called in it, results come back as one JSON array.
"""

from __future__ import annotations

import json
import sys

import pytest
from tests.conftest import ROOT

from plistspec.elisp.printer import print_string
from plistspec.pyfunc import from_python
from plistspec.pyfunc.convert import format_result

FIXTURE_DIR = ROOT / "fixtures" / "python"


def runtime() -> str:
    """What a generated file starts with: the bridge library (``elisp/`` is on the test
    Emacs's load-path) and the variable its lambdas read the modules' directory from."""
    return (
        "(require 'plistspec-bridge)\n"
        f"(defvar tools-python-directory {print_string(str(FIXTURE_DIR))})\n"
    )


@pytest.fixture(scope="module")
def pytools():
    sys.path.insert(0, str(FIXTURE_DIR))
    try:
        import pytools

        yield pytools
    finally:
        sys.path.remove(str(FIXTURE_DIR))


def expected(pytools):
    """(tool, Elisp args gptel passes, Elisp args llm passes, the Python call's result).

    llm turns every false into nil before calling a tool, so its false is nil here; under llm
    ``flags``'s ``dry_run`` (default True) is required, so its nil is read as false."""
    m = pytools
    raised = "Error: fail() raised ValueError: cannot do it: nope"
    return [
        (
            "greet",
            '"Zoë" :json-false nil',
            '"Zoë" nil nil',
            format_result(m.greet("Zoë", False)),
        ),
        ("greet", '"Bob" t "?"', '"Bob" t "?"', format_result(m.greet("Bob", True, "?"))),
        ("flags", ":json-false nil", "nil t", format_result(m.flags(False))),
        ("flags", "t :json-false", "t nil", format_result(m.flags(True, False))),
        (
            "total",
            '(vector (list :name "a" :qty 2) (list :name "ü")) "fahrenheit" nil',
            '(vector \'((name . "a") (qty . 2)) \'((name . "ü"))) "fahrenheit" nil',
            format_result(m.total([m.Item("a", 2), m.Item("ü")], m.Unit.F)),
        ),
        ("fail", '"nope"', '"nope"', raised),
        ("slow_echo", '"héllo" "upper"', '"héllo" "upper"', format_result("HÉLLO")),
        ("options", "[] nil", "[] nil", format_result(m.options([], {}))),
    ]


def _program(tools, cases, dialect: str, is_async: bool) -> str:
    by_name = {t["name"]: t["metadata"]["function"] for t in tools}
    lines = [runtime(), f"(setq results (make-vector {len(cases)} nil))"]
    for i, (name, gptel_args, llm_args, _want) in enumerate(cases):
        args = gptel_args if dialect == "gptel" else llm_args
        fn = by_name[name]
        if is_async:
            lines.append(f"(funcall {fn}\n (lambda (r) (aset results {i} r)) {args})")
        else:
            lines.append(f"(aset results {i} (funcall {fn}\n {args}))")
    lines.append(
        "(let ((deadline (+ (float-time) 60)))"
        " (while (and (seq-some #'null results) (< (float-time) deadline))"
        " (accept-process-output nil 0.05)))"
    )
    lines.append("(princ (json-serialize (vconcat (seq-map (lambda (r) (or r :null)) results))))")
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize(
    "dialect,is_async", [("gptel", False), ("gptel", True), ("llm", False), ("llm", True)]
)
def test_lambdas_call_python(emacs, pytools, dialect, is_async):
    tools, diags = from_python("pytools", cwd=str(FIXTURE_DIR), dialect=dialect, async_=is_async)
    assert not [d for d in diags if d.is_error]
    for t in tools:
        assert t["metadata"]["async"] is is_async
    cases = expected(pytools)
    got = json.loads(emacs.run(_program(tools, cases, dialect, is_async)))
    for (name, args, _llm, want), result in zip(cases, got, strict=True):
        assert result == want, (name, args)


def test_async_lambda_does_not_block(emacs, pytools):
    """The --async lambda returns before Python has answered; the callback fires later."""
    tools, _ = from_python("pytools:slow_echo", cwd=str(FIXTURE_DIR), async_=True)
    fn = tools[0]["metadata"]["function"]
    out = emacs.run(
        runtime()
        + f'(setq got nil)\n(setq ret (funcall {fn}\n (lambda (r) (setq got r)) "x" nil))\n'
        '(princ (if got "blocked" "returned-first"))\n'
        "(while (not got) (accept-process-output nil 0.05))\n"
        '(princ (concat " " got))'
    )
    assert out == "returned-first x"
