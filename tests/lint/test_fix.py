"""``check --fix`` / ``--diff`` / ``--unsafe-fixes`` and the fix engine (fixes.py).

Held to: safe fixes never change the JSON gptel/llm send (checked with the public API on
every provider format, independently of the engine's own check), every comment and every
byte outside the fixes is kept, fixing twice is fixing once, every code that carries a
fix is classified, files are rewritten atomically with their mode, BOM and CRLF kept,
stdin prints the whole fixed text.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import plistspec
from plistspec.checking.fixes import SAFETY, apply_fixes, fix_text
from plistspec.checking.run import Settings, findings
from plistspec.core.diagnostics import Diagnostic, Fix

ROOT = Path(__file__).resolve().parents[2]
BROKEN = sorted((ROOT / "fixtures" / "broken").glob("*.el"))
CORPUS = sorted((ROOT / "fixtures" / "corpus").glob("*.el")) + sorted(
    (ROOT / "fixtures" / "elisp").glob("*.el")
)
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama")

BUFFER = """\
;;; tools.el --- mine  -*- lexical-binding: t -*-
;; a comment ; with ; semicolons
(gptel-make-tool
 :name "search" ; the name
 :function #'my-search
 :description: "Search things"   ; typo kept?
 :args (list '(:name "q" :type "string" :description "Query" :description "dup") ; two
             ;; the count
             '(:name "n" :type integer :required t :description "N")
             '(:name "unit" :type string :description "u" :enum ("c" "f"))))
(defun keep-me () "untouched ; text" (list 1 2))
"""


def cli(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", "check", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def sent(text: str) -> dict:
    """What gptel/llm send for every tool of ``text``, per provider format (public API)."""
    tools, diags = plistspec.read_tools(text, path="t.el")
    out = {"errors": sorted((d.code, d.line) for d in diags if d.severity == "error")}
    for fmt in FORMATS:
        try:
            value, more = plistspec.to_provider(tools, fmt)
        except Exception as e:  # noqa: BLE001
            out[fmt] = repr(e)
            continue
        out[fmt] = (value, sorted(d.code for d in more if d.severity == "error"))
    return out


def comments(text: str) -> list[str]:
    from plistspec.elisp.recover import read_recovering
    from plistspec.emit_elisp.comments import comments_in

    datums, _ = read_recovering(text)
    out = []
    for p in comments_in(text, datums, 0, len(text)):
        eol = text.find("\n", p)
        out.append(text[p : eol if eol >= 0 else len(text)].rstrip())
    return out


def run_fix(text: str, unsafe: bool):
    return fix_text(text, lambda t: findings(t, "t.el", Settings()), unsafe=unsafe)


@pytest.mark.slow
@pytest.mark.parametrize("path", BROKEN + CORPUS, ids=lambda p: p.name)
def test_fix_properties_on_every_fixture(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    safe = run_fix(text, unsafe=False)
    # safe fixes: what is sent is exactly the same
    assert sent(safe.text) == sent(text)
    for d in safe.applied:
        assert SAFETY[d.code] == "safe"
    for unsafe in (False, True):
        out = safe if not unsafe else run_fix(text, unsafe=True)
        # comments kept, word for word
        assert comments(out.text) == comments(text)
        # idempotent: fixing the result changes nothing
        again = run_fix(out.text, unsafe=unsafe)
        assert again.text == out.text and not again.applied
        # every fix-carrying finding left is classified, and none is applicable any more
        for d in out.remaining:
            if d.fix is not None:
                assert d.code in SAFETY, d.code


def test_fixtures_exercise_safe_and_unsafe_fixes() -> None:
    """Guard for the test above: the fixtures really contain fixes of both kinds."""
    kinds = set()
    for path in BROKEN:
        text = path.read_text(encoding="utf-8")
        for d in findings(text, "t.el", Settings()):
            if d.fix is not None:
                assert d.code in SAFETY, f"{path.name}: {d.code} has a fix but no safety class"
                kinds.add(SAFETY[d.code])
    assert kinds == {"safe", "unsafe"}


def test_unsafe_fixes_fix_what_they_claim() -> None:
    out = run_fix(BUFFER, unsafe=True)
    codes = {d.code for d in out.applied}
    assert {"PS301", "PS303", "PS312", "PS315"} <= codes
    assert ':description "Search things"' in out.text
    assert ':enum ["c" "f"]' in out.text and ":required t" not in out.text
    assert not [d for d in out.remaining if d.severity == "error"]
    # only the fixed spans changed: the rest, comments and the defun included, is intact
    assert out.text.endswith('(defun keep-me () "untouched ; text" (list 1 2))\n')
    assert comments(out.text) == comments(BUFFER)


def test_safe_fix_that_would_change_llm_json_is_withheld() -> None:
    text = (
        '(llm-make-tool :name "x" :function #\'ignore :description "d"\n'
        ' :args (list \'(:name "a" :type "string" :description "A" :description "B")))\n'
    )
    out = run_fix(text, unsafe=False)
    assert [d.code for d in out.applied] == ["PS312"]  # the duplicate key: same JSON
    assert ':type "string"' in out.text  # llm failed on it: fixing it changes what is sent
    assert sent(out.text) == sent(text)


def test_overlapping_fixes_are_resolved_deterministically() -> None:
    text = "(a bb ccc)"

    def check(t: str) -> list[Diagnostic]:
        found = []
        if "bb" in t:
            i = t.index("bb")
            found.append(Diagnostic("PS312", "warning", "x", i, i + 2, fix=Fix(i, i + 2, "B")))
            found.append(Diagnostic("PS315", "warning", "y", i, i + 6, fix=Fix(i, i + 6, "Z")))
        if "ccc" in t:
            i = t.index("ccc")
            found.append(Diagnostic("PS301", "warning", "z", i, i + 3, fix=Fix(i, i + 3, "C")))
        return found

    results = {fix_text(text, lambda t, r=r: check(t)[::r], unsafe=True).text for r in (1, -1)}
    assert results == {"(a B C)"}  # bb first (same start: the shorter span), then ccc
    assert apply_fixes("abc", [Fix(2, 3, "Z"), Fix(0, 1, "X")]) == "XbZ"


@pytest.mark.slow
def test_cli_fix_in_place_keeps_mode_bom_crlf(tmp_path: Path) -> None:
    f = tmp_path / "tools.el"
    raw = "\ufeff" + BUFFER.replace("\n", "\r\n")
    f.write_bytes(raw.encode("utf-8"))
    os.chmod(f, 0o640)
    p = cli("--fix", str(f))
    assert p.returncode == 1, p.stderr  # the :enum list is an error only an unsafe fix fixes
    assert "fixed PS312" in p.stderr and "Fixed 2 findings in 1 file" in p.stderr
    data = f.read_bytes()
    assert (
        data.startswith(b"\xef\xbb\xbf")
        and b"\r\n" in data
        and b"\n" not in data.replace(b"\r\n", b"")
    )
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    text = data.decode("utf-8")[1:].replace("\r\n", "\n")
    assert text == run_fix(BUFFER, unsafe=False).text
    assert not [x for x in os.listdir(tmp_path) if x.startswith(".plistspec-")]
    # what is left is reported on stdout, in the format asked for
    assert "PS301" in p.stdout and "PS312" not in p.stdout
    # --unsafe-fixes then fixes the rest; a second run changes nothing
    p = cli("--fix", "--unsafe-fixes", str(f))
    assert p.returncode == 0 and ':enum ["c" "f"]' in f.read_text(encoding="utf-8")
    before = f.read_bytes()
    p = cli("--fix", "--unsafe-fixes", str(f))
    assert f.read_bytes() == before and "Fixed 0 findings in 0 files" in p.stderr


def test_cli_fix_exit_code_only_when_errors_remain(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(
        '(gptel-make-tool :description "d" :function #\'f\n'
        ' :args (list \'(:name "u" :type string :description "u" :enum ("c"))))\n',
        encoding="utf-8",
    )
    p = cli("--fix", "--unsafe-fixes", str(f))
    assert p.returncode == 1  # PS304 (no :name) has no fix
    assert "PS304" in p.stdout and "PS317" not in p.stdout and "PS201" not in p.stdout
    assert '["c"]' in f.read_text(encoding="utf-8")


@pytest.mark.slow
def test_cli_diff_writes_nothing(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(BUFFER, encoding="utf-8")
    p = cli("--diff", "--unsafe-fixes", str(f))
    assert p.returncode == 1
    assert f.read_text(encoding="utf-8") == BUFFER
    assert p.stdout.startswith(f"--- a/{f}\n+++ b/{f}\n@@")
    assert '-             \'(:name "n" :type integer :required t :description "N")' in p.stdout
    assert '+             \'(:name "n" :type integer :description "N")' in p.stdout
    clean = tmp_path / "clean.el"
    clean.write_text(run_fix(BUFFER, unsafe=True).text, encoding="utf-8")
    p = cli("--diff", "--unsafe-fixes", str(clean))
    assert p.returncode == 0 and p.stdout == ""


@pytest.mark.slow
def test_cli_stdin_fix_prints_the_whole_buffer() -> None:
    p = cli("--fix", "--unsafe-fixes", "--stdin-filename", "buf.el", "-", stdin=BUFFER)
    assert p.returncode == 0, p.stderr
    assert p.stdout == run_fix(BUFFER, unsafe=True).text
    assert "buf.el:" in p.stderr  # what is left, and what was fixed, on stderr
    p = cli("--fix", "--stdin-filename", "buf.el", "--output-format", "json", "-", stdin=BUFFER)
    assert p.stdout == run_fix(BUFFER, unsafe=False).text
    assert re.search(r'"code": "PS301"', p.stderr)


def test_cli_fix_refuses_read_only_file(tmp_path: Path) -> None:
    f = tmp_path / "ro.el"
    f.write_text(BUFFER, encoding="utf-8")
    os.chmod(f, 0o444)
    p = cli("--fix", str(f))
    assert f.read_text(encoding="utf-8") == BUFFER
    assert p.returncode == 1 and "read-only [PS902]" in p.stdout
    assert "Traceback" not in p.stderr


def test_cli_fix_through_symlink_and_hard_link(tmp_path: Path) -> None:
    f = tmp_path / "real.el"
    f.write_text(BUFFER, encoding="utf-8")
    link = tmp_path / "link.el"
    link.symlink_to(f)
    hard = tmp_path / "hard.el"
    os.link(f, hard)
    assert cli("--fix", str(link)).returncode == 1  # errors left
    assert link.is_symlink() and os.path.samefile(f, hard)
    assert hard.read_text(encoding="utf-8") == run_fix(BUFFER, unsafe=False).text


def test_a_fix_over_a_comment_is_not_applied() -> None:
    text = (
        '(gptel-make-tool :name "t" :function #\'f :description "d"\n'
        ' :args (list \'(:name "q" :type string :description "Q" :required ; why\n'
        "               t)))\n"
    )
    out = run_fix(text, unsafe=True)
    assert out.text == text and not out.applied
    assert [d.code for d in out.remaining if d.fix is not None] == ["PS303"]


def test_a_safe_classified_fix_that_changes_the_json_is_withheld() -> None:
    """The engine's own verification: a fix of a safe code that would change what is sent
    is not applied without --unsafe-fixes (here, next to a real safe fix in the same form)."""
    text = (
        '(gptel-make-tool :name "t" :function #\'f :description "d"\n'
        ' :args (list \'(:name "q" :type string :description "a" :description "b")))\n'
    )
    real = findings(text, "t.el", Settings())
    assert [d.code for d in real if d.fix is not None] == ["PS312"]
    i = text.index('"d"')

    def check(t: str) -> list[Diagnostic]:
        out = findings(t, "t.el", Settings())
        if '"d"' in t:  # a made-up "safe" fix that renames the description
            j = t.index('"d"')
            out.append(Diagnostic("PS315", "info", "x", j, j + 3, fix=Fix(j, j + 3, '"e"')))
        return out

    out = fix_text(text, check, unsafe=False)
    assert out.text == text.replace(' :description "b"', "")
    assert [d.code for d in out.withheld] == ["PS315"] and i > 0
    assert sent(out.text) == sent(text)
    assert fix_text(text, check, unsafe=True).text.count('"e"') == 1
