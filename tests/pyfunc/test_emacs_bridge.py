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
    Emacs's load-path) and the variable its lambdas read the modules' directory from; and
    the Python that runs the tools, named: this one (which has this checkout's plistspec),
    never a ``.venv`` the bridge would find above the fixtures (one in the clone need not
    have plistspec)."""
    return (
        "(require 'plistspec-bridge)\n"
        f"(setq plistspec-bridge-python {print_string(sys.executable)})\n"
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
    # Emacs 30's json-serialize returns unibyte UTF-8: decoded, it prints the same on 28
    lines.append(
        "(princ (decode-coding-string (json-serialize"
        " (vconcat (seq-map (lambda (r) (or r :null)) results))) 'utf-8))"
    )
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


# --- which Python runs a tool, and what its errors say (issue 30 §2, issue 31 #3, issue 29 §4)

GREET = 'def greet(who: str) -> str:\n    import sys\n    return who + ":" + sys.prefix\n'


def _bridge_call(emacs, root, setup: str = "", bridge: str = "worker") -> str:
    """Call greet("Zoë") through the bridge, the module imported from ``root``."""
    spec = (
        f'(list :root {print_string(str(root))} :module-file "tool.py" :target "tool:greet"'
        f' :dialect "gptel" :bridge \'{bridge} :timeout 60)'
    )
    return emacs.run(
        "(require 'plistspec-bridge)\n"
        '(setq plistspec-cli-directory "/nonexistent/plistspec-cli/")\n'
        + setup
        + f'(princ (plistspec-bridge-call {spec} (list (cons \'who "Zoë"))))'
    )


def _chosen(emacs, root, setup: str = "") -> tuple[str, str]:
    """(the Python the bridge takes for a module in ``root``, why it says it took it)."""
    out = emacs.run(
        "(require 'plistspec-bridge)\n"
        '(setq plistspec-cli-directory "/nonexistent/plistspec-cli/")\n'
        + setup
        + f"(let ((p (plistspec-bridge--python nil {print_string(str(root) + '/')})))"
        ' (princ (concat (car p) "\\n" (cdr p))))'
    )
    python, why = out.split("\n", 1)
    return python, why


def _stand_in(path, marker) -> None:
    """A stand-in Python at ``path``: notes that it ran in ``marker``, then runs this one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\ntouch {marker}\nexec {sys.executable} "$@"\n', encoding="utf-8")
    path.chmod(0o755)


@pytest.mark.slow
@pytest.mark.parametrize("bridge", ["worker", "process"])
def test_python_without_plistspec_names_itself_and_the_fix(emacs, tmp_path, bridge) -> None:
    """A Python that lacks plistspec: the tool's one Error: line says which Python ran, why
    that one, and what to do (plistspec-bridge-python, M-x plistspec-install-cli,
    from-py --python), on Emacs 28 and 30 alike."""
    (tmp_path / "tool.py").write_text(GREET, encoding="utf-8")
    bare = tmp_path / "bare" / "python"
    bare.parent.mkdir()
    # this Python without its site-packages: no plistspec
    bare.write_text(f'#!/bin/sh\nunset PYTHONPATH\nexec {sys.executable} -S "$@"\n')
    bare.chmod(0o755)
    setup = f"(setq plistspec-bridge-python {print_string(str(bare))})\n"
    got = _bridge_call(emacs, tmp_path, setup, bridge)
    assert got.startswith("Error: the Python tool tool:greet "), got
    assert "No module named plistspec" in got, got
    assert "set plistspec-bridge-python to a Python that has it" in got, got
    assert "M-x plistspec-install-cli" in got and "from-py --python" in got, got
    assert f"[Python: {bare}, the option plistspec-bridge-python]" in got, got
    assert "\n" not in got.strip()
    # the same call with this Python works
    setup = f"(setq plistspec-bridge-python {print_string(sys.executable)})\n"
    assert _bridge_call(emacs, tmp_path, setup, bridge) == f"Zoë:{sys.prefix}"


@pytest.mark.slow
def test_venv_search_stops_at_the_project(emacs, tmp_path) -> None:
    """The .venv above the tools' project is not theirs (issue 31 #3): not taken."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "py").mkdir()
    (proj / "py" / "tool.py").write_text(GREET, encoding="utf-8")
    marker = tmp_path / "above-ran"
    _stand_in(tmp_path / ".venv" / "bin" / "python", marker)
    python, why = _chosen(emacs, proj / "py")
    assert not python.startswith(str(tmp_path)), (python, why)
    assert why.startswith("python3 on exec-path"), why
    assert _bridge_call(emacs, proj / "py") == f"Zoë:{sys.prefix}"
    assert not marker.exists()
    # the project's own .venv is taken, and what it took is said
    _stand_in(proj / ".venv" / "bin" / "python", marker)
    python, why = _chosen(emacs, proj / "py")
    assert python == str(proj / ".venv" / "bin" / "python"), (python, why)
    assert why.startswith("the nearest .venv above the module folder, up to "), why
    assert _bridge_call(emacs, proj / "py") == f"Zoë:{sys.prefix}"
    assert marker.exists()


@pytest.mark.slow
def test_venv_others_may_write_is_passed_over(emacs, tmp_path) -> None:
    """A .venv whose folders others may write (or another user owns) is never taken; the
    search never looks in a folder others may write (a shared temporary folder)."""
    import os

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "tool.py").write_text(GREET, encoding="utf-8")
    marker = tmp_path / "venv-ran"
    venv_bin = proj / ".venv" / "bin"
    _stand_in(venv_bin / "python", marker)
    venv_bin.chmod(0o777)
    python, why = _chosen(emacs, proj)
    assert python != str(venv_bin / "python"), (python, why)
    assert f"passed over {venv_bin / 'python'}: {venv_bin} is writable by others" in why, why
    assert _bridge_call(emacs, proj) == f"Zoë:{sys.prefix}"
    assert not marker.exists()
    venv_bin.chmod(0o755)
    assert _chosen(emacs, proj)[0] == str(venv_bin / "python")
    if os.geteuid() == 0:  # only root can give the folder to another user
        os.chown(proj / ".venv", 65534, 65534)
        python, why = _chosen(emacs, proj)
        assert python != str(venv_bin / "python") and "owned by another user" in why, why
        os.chown(proj / ".venv", 0, 0)
    # no project, outside home: the search stops below a folder others may write
    shared = tmp_path / "shared"
    (shared / "tools").mkdir(parents=True)
    _stand_in(shared / ".venv" / "bin" / "python", marker)
    shared.chmod(0o1777)
    python, why = _chosen(emacs, shared / "tools")
    assert python != str(shared / ".venv" / "bin" / "python"), (python, why)
    assert f"the search stopped: {shared} is writable by others" in why, why
    shared.chmod(0o755)
