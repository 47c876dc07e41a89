"""End to end: ``plistspec from-py`` writes tools.el; real Emacs loads it with a stand-in for
``gptel-make-tool`` that records each plist; each recorded ``:function`` is called the way
gptel calls it (positionally, in ``:args`` order; ``:json-false``; nil for an omitted optional
argument; vectors and plists) and must return what the Python function returns."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.conftest import ROOT

from plistspec.pyfunc.convert import format_result

FIXTURE_DIR = ROOT / "fixtures" / "python"

STAND_IN = """
(defvar recorded nil)
(defun gptel-make-tool (&rest plist) (setq recorded (append recorded (list plist))) plist)
(provide 'gptel)
"""


def _generate(tmp_path, *extra: str) -> str:
    pytest.importorskip(
        "plistspec.elisp.printer", reason="the Elisp printer (issue 3) is not in the tree yet"
    )
    out = tmp_path / "tools.el"
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "pytools", "-o", str(out), *extra],
        cwd=FIXTURE_DIR,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return str(out)


@pytest.fixture(scope="module")
def pytools():
    sys.path.insert(0, str(FIXTURE_DIR))
    try:
        import pytools

        yield pytools
    finally:
        sys.path.remove(str(FIXTURE_DIR))


@pytest.mark.parametrize("is_async", [False, True])
def test_tools_file_in_emacs(emacs, tmp_path, pytools, is_async):
    path = _generate(tmp_path, *(["--async"] if is_async else []))
    m = pytools
    calls = [
        ("greet", '"Zoë" :json-false nil', format_result(m.greet("Zoë", False))),
        ("flags", ":json-false :json-false", format_result(m.flags(False, False))),
        (
            "total",
            '(vector (list :name "a" :qty 2) (list :name "b")) nil nil',
            format_result(m.total([m.Item("a", 2), m.Item("b")])),
        ),
        ("fail", '"x"', "Error: fail() raised ValueError: cannot do it: x"),
        ("slow_echo", '"ça va" nil', "ça va"),
    ]
    prog = [STAND_IN, f"(load {json.dumps(path)} nil t)"]
    prog.append(
        "(defun tool (name) (seq-find (lambda (p) (equal (plist-get p :name) name)) recorded))"
    )
    prog.append(f"(setq results (make-vector {len(calls)} nil))")
    for i, (name, args, _want) in enumerate(calls):
        fn = f'(plist-get (tool "{name}") :function)'
        if is_async:
            prog.append(f"(apply {fn} (lambda (r) (aset results {i} r)) (list {args}))")
        else:
            prog.append(f"(aset results {i} (apply {fn} (list {args})))")
    prog.append(
        "(while (seq-some #'null results) (accept-process-output nil 0.05))"
        "(princ (json-serialize (vector results"
        " (vconcat (mapcar (lambda (p) (vector (plist-get p :name)"
        " (if (plist-get p :async) t :json-false)"
        " (vconcat (mapcar (lambda (a) (vector (plist-get a :name) (if (plist-get a :optional) t :json-false)))"
        " (plist-get p :args))))) recorded))) :false-object :json-false))"
    )
    results, shapes = json.loads(emacs.run("\n".join(prog)))
    for (name, args, want), got in zip(calls, results, strict=True):
        assert got == want, (name, args)
    by_name = {name: (is_a, args) for name, is_a, args in shapes}
    assert by_name["greet"][1] == [["name", False], ["shout", True], ["punctuation", True]]
    assert by_name["total"][1][0] == ["items", False]
    assert all(is_a == is_async for is_a, _ in by_name.values())
