"""End to end: ``plistspec from-py`` writes tools.el; real Emacs loads it into the real gptel
(``gptel-make-tool`` builds each ``gptel-tool``), and each tool's ``:function`` is applied to
Elisp values of the kinds gptel hands tools (``:json-false``; nil for an omitted optional
argument; vectors and plists) and must return what the Python function returns. The calls
through gptel's own parsers and ``gptel--handle-tool-use`` are in test_real_libraries.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import ROOT

from plistspec.pyfunc.convert import format_result
from support import elisp_deps_preamble

FIXTURE_DIR = ROOT / "fixtures" / "python"

DRIVER = Path(__file__).with_name("drive_libraries.el")


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
        timeout=600,
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


@pytest.mark.slow
@pytest.mark.parametrize("is_async", [False, True])
def test_tools_file_in_emacs(emacs, elisp_deps_dir, tmp_path, pytools, is_async):
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
    prog = [
        elisp_deps_preamble(elisp_deps_dir),
        f"(load {json.dumps(str(DRIVER))} nil t)",
        f"(ps-load-tools {json.dumps(path)})",
    ]
    prog.append(f"(setq results (make-vector {len(calls)} nil))")
    for i, (name, args, _want) in enumerate(calls):
        fn = f'(gptel-tool-function (ps-tool "{name}"))'
        if is_async:
            prog.append(f"(apply {fn} (lambda (r) (aset results {i} r)) (list {args}))")
        else:
            prog.append(f"(aset results {i} (apply {fn} (list {args})))")
    prog.append(
        "(while (seq-some #'null results) (accept-process-output nil 0.05))"
        # Emacs 30's json-serialize returns unibyte UTF-8: decoded, it prints as on 28
        "(princ (decode-coding-string (json-serialize (vector results"
        " (vconcat (mapcar (lambda (p) (vector (gptel-tool-name p)"
        " (if (gptel-tool-async p) t :json-false)"
        " (vconcat (mapcar (lambda (a) (vector (plist-get a :name) (if (plist-get a :optional) t :json-false)))"
        " (gptel-tool-args p))))) ps-tools))) :false-object :json-false) 'utf-8))"
    )
    results, shapes = json.loads(emacs.run("\n".join(prog)))
    for (name, args, want), got in zip(calls, results, strict=True):
        assert got == want, (name, args)
    by_name = {name: (is_a, args) for name, is_a, args in shapes}
    assert by_name["greet"][1] == [["name", False], ["shout", True], ["punctuation", True]]
    assert by_name["total"][1][0] == ["items", False]
    assert all(is_a == is_async for is_a, _ in by_name.values())


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_generated_file_byte_compiles_without_warnings(emacs, elisp_deps_dir, tmp_path, dialect):
    out = tmp_path / "tools.el"
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "from-py", "pytools", "-d", dialect, "-o", str(out)],
        cwd=FIXTURE_DIR, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = emacs.run(
        elisp_deps_preamble(elisp_deps_dir)
        + f"(require '{dialect})\n(setq byte-compile-error-on-warn t)\n"
        + f'(princ (if (byte-compile-file {json.dumps(str(out))}) "ok" "failed"))',
        check=False,
    )
    assert got.endswith("ok"), got
