"""``plistspec check``: formats, exit codes, stdin naming."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "elisp" / "record_summary.el"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", "check", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


@pytest.mark.slow
def test_gnu_output_and_exit_codes(tmp_path: Path) -> None:
    p = run(str(SEED))
    assert p.returncode == 0  # only a warning
    assert f"{SEED}:14:45: warning: unknown keyword :description:" in p.stdout
    assert p.stdout.rstrip().endswith("[PS301]")
    bad = tmp_path / "bad.el"
    bad.write_text('(gptel-make-tool :description "d" :function #\'f)\n', encoding="utf-8")
    p = run(str(bad))
    assert p.returncode == 1 and f"{bad}:1:1: error:" in p.stdout and "[PS304]" in p.stdout
    assert run(str(bad), "--exit-zero").returncode == 0


@pytest.mark.slow
def test_json_stdin_named_and_exit_zero() -> None:
    text = (
        SEED.read_text(encoding="utf-8") + '\n(gptel-make-tool :description "d" :function #\'f)\n'
    )
    p = run("--output-format", "json", "--stdin-filename", "buf.el", "--exit-zero", "-", stdin=text)
    assert p.returncode == 0
    # without --exit-zero the JSON format exits 1 on errors, as the text format does
    assert run("--output-format", "json", "-", stdin=text).returncode == 1
    data = json.loads(p.stdout)
    assert {d["path"] for d in data} == {"buf.el"}
    codes = {d["code"] for d in data}
    assert {"PS301", "PS304"} <= codes
    first = next(d for d in data if d["code"] == "PS301")
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (
        14,
        45,
        14,
        58,
    )
    assert first["fix"]["replacement"] == ":description"
    for d in data:
        assert set(d) >= {
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "severity",
            "code",
            "message",
        }


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run("--target", "nowhere", str(SEED)).returncode == 2
    # no FILE is no usage error (issue 29): the current folder is checked, as `ruff check`
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "check"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0 and "no Emacs Lisp files found under ." in p.stderr


def test_missing_file_and_bad_utf8(tmp_path: Path) -> None:
    p = run(str(tmp_path / "nope.el"))
    assert p.returncode == 1 and "[PS901]" in p.stdout
    bad = tmp_path / "latin1.el"
    bad.write_bytes(b'(gptel-make-tool :name "caf\xe9")\n')
    p = run("--output-format", "json", str(bad))
    data = json.loads(p.stdout)
    assert data[0]["code"] == "PS001" and (data[0]["line"], data[0]["column"]) == (1, 28)


def test_columns_count_characters() -> None:
    text = ';; ünïcödé 𝄞\n(gptel-make-tool :name "f" :description "é𝄞" :function #\'f :args (list \'(:name "x" :type strng)))\n'
    p = run("--output-format", "json", "-", stdin=text)
    (d,) = [d for d in json.loads(p.stdout) if d["code"] == "PS314"]
    line = text.splitlines()[1]
    assert (d["line"], d["column"]) == (2, line.index("strng") + 1)
