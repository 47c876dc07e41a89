"""Every macro and special form of Emacs in a ``:function`` body: loading and
byte-compiling what ``from-json`` writes never runs it.

The candidates are every special form, every macro, every pcase pattern macro and every
function with a compiler macro, byte-compile handler or byte-optimizer of this machine's
Emacs with the real gptel and llm loaded (``mapatoms``), each placed in a lambda body in
the shapes that make such forms evaluate their arguments when expanded (``(M X)``, a
``let``-like binding list, ``cl-eval-when``'s situations, ``cl-macrolet``'s definitions,
rx's ``(eval X)``, a pcase pattern, ``(funcall #'M X)``...), where each ``X`` creates a
marker file. The IR holding them all goes through ``from-json`` once; every tool form it
writes is then loaded with ``load`` and byte-compiled with ``byte-compile-file`` in one
Emacs, and no marker may appear. The same harness given the texts as they are
(``--trust-functions``) must see the markers of the macros known to run code at
expansion time: the sweep can see what it looks for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.emacs]

ROOT = Path(__file__).resolve().parents[2]

# Shapes; M is the symbol, X a form creating a marker file (each X its own file).
SHAPES = [
    "(M X)",
    "(M X X X)",
    "(M ((x X)) X)",
    "(M (x X) X)",
    "(M x X X)",
    "(M (compile load eval) X)",
    "(M ((x () X)) (x))",
    "(M ((x X)) x)",
    "(M (eval X))",
    "(M a ((pred (lambda (_) X)) 1) ((rx (eval X)) 2) (t X))",
    "(pcase a ((M X) 1) ((M (eval X)) 2))",
    "(funcall #'M X)",
    "(funcall 'M X)",
    "(apply #'M X nil)",
    "(apply 'M X '(1))",
    "(mapcar #'M (list X))",
]
# Macros Emacs 28 (with compat) has that evaluate code when expanded: the control run
# (texts written as they are) must see each of them run.
KNOWN_TO_RUN = [
    "eval-when-compile",
    "eval-and-compile",
    "let-when-compile",
    "cl-eval-when",
    "cl-load-time-value",
    "cl-macrolet",
    "rx",
    "define-ccl-program",
    "static-if",
]

HARNESS = r"""
(setq byte-compile-warnings nil)
(defun sweep--quietly (f)
  (let ((inhibit-message t) (message-log-max nil))
    (condition-case nil (funcall f) (error nil))))
(dolist (f sweep-files)
  (sweep--quietly (lambda () (load f nil t t)))
  (sweep--quietly (lambda () (byte-compile-file f))))
(princ "DONE\n")
"""


def _symbols() -> list[str]:
    from gen_load_safety import collect

    found = collect()
    names = set()
    for kind in ("special", "macro", "compile", "pcase"):
        names |= found.get(kind, set())
    # what the printer can write as a symbol and our reader reads back as one
    return sorted(n for n in names if n and n.isprintable() and not any(c.isspace() for c in n))


def _candidates(symbols: list[str], marks: Path) -> list[tuple[str, str]]:
    from plistspec.elisp.printer import print_symbol

    out = []
    n = 0
    for name in symbols:
        sym = print_symbol(name)
        for shape in SHAPES:
            body = []
            for part in shape.replace("M", "\0").split("X"):
                body.append(part)
                body.append(None)
            body.pop()
            text = []
            for part in body:
                if part is None:
                    n += 1
                    text.append(f'(write-region "" nil {json.dumps(str(marks / str(n)))})')
                else:
                    text.append(part.replace("\0", sym))
            out.append((name, "(lambda (a) " + "".join(text) + " a)"))
    return out


def _owners(cands: list[tuple[str, str]]) -> dict[int, tuple[str, str]]:
    """Marker number → the candidate (symbol, text) whose form creates it."""
    out = {}
    n = 0
    for cand in cands:
        for _ in range(cand[1].count("(write-region ")):
            n += 1
            out[n] = cand
    return out


def _ir(cands: list[tuple[str, str]]) -> list[dict]:
    return [
        {
            "type": "function",
            "name": f"t{i}",
            "description": "d",
            "parameters": {"type": "object", "properties": {}},
            "metadata": {"dialect": "gptel", "function": text},
        }
        for i, (_, text) in enumerate(cands)
    ]


def _run(tmp: Path, cands: list[tuple[str, str]], trust: bool, emacs, deps: Path) -> list[str]:
    """Write the candidates with from-json, load and byte-compile each tool form in one
    Emacs; the names of the markers that appeared."""
    from plistspec.elisp.reader import read_all
    from support import elisp_deps_preamble

    src = tmp / "ir.json"
    src.write_text(json.dumps(_ir(cands)), encoding="utf-8")
    out = tmp / "tools.el"
    args = [sys.executable, "-m", "plistspec", "from-json", str(src), "-o", str(out)]
    r = subprocess.run(
        args + (["--trust-functions"] if trust else []), capture_output=True, timeout=600
    )
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    text = out.read_text(encoding="utf-8")
    header = ";;; -*- lexical-binding: t; -*-\n(require 'gptel)\n"
    stubs: list[str] = []
    files: list[Path] = []
    forms = tmp / "forms"
    forms.mkdir()
    for d in read_all(text):
        form = text[d.start : d.end]
        if d.items[0].name != "gptel-make-tool":
            continue
        if "is not implemented yet" in form:
            stubs.append(form)  # the stub: one file for all of them
            continue
        f = forms / f"f{len(files)}.el"
        f.write_text(header + form + "\n", encoding="utf-8")
        files.append(f)
    if stubs:
        f = forms / "stubs.el"
        f.write_text(header + "\n".join(stubs) + "\n", encoding="utf-8")
        files.append(f)
    script = elisp_deps_preamble(deps) + "(require 'gptel)\n"
    script += "(setq sweep-files (list " + " ".join(json.dumps(str(f)) for f in files) + "))\n"
    assert emacs.run(script + HARNESS, timeout=1500).endswith("DONE\n")
    marks = tmp / "marks"
    return sorted(os.listdir(marks))


def test_no_macro_or_special_form_runs_when_the_written_file_is_loaded_or_compiled(
    emacs, elisp_deps_dir, tmp_path: Path
) -> None:
    symbols = _symbols()
    assert len(symbols) > 1000  # the whole of Emacs + gptel + llm, not a sample
    assert {"let-when-compile", "define-ccl-program", "eval-when-compile"} <= set(symbols)
    marks = tmp_path / "marks"
    marks.mkdir()
    cands = _candidates(symbols, marks)
    found = _run(tmp_path, cands, False, emacs, elisp_deps_dir)
    owners = _owners(cands)
    assert found == [], sorted({owners[int(m)][0] for m in found})


def test_the_sweep_sees_the_macros_that_run_code(emacs, elisp_deps_dir, tmp_path: Path) -> None:
    """Control: the same harness, the texts written as they are (--trust-functions)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    cands = _candidates(KNOWN_TO_RUN, marks)
    found = _run(tmp_path, cands, True, emacs, elisp_deps_dir)
    owners = _owners(cands)
    ran = {owners[int(m)][0] for m in found}
    assert ran == set(KNOWN_TO_RUN), sorted(set(KNOWN_TO_RUN) - ran)
