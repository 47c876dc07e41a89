"""``check`` output formats (report.py), through the command line: one line per finding in
gnu and github whatever the input holds, exact JSON, SARIF valid against the official
SARIF 2.1.0 schema (tests/lint/data/, see its README), statistics, --output-file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).with_name("data") / "sarif-schema-2.1.0.json"
SEED = ROOT / "fixtures" / "elisp" / "record_summary.el"

# A keyword holding an escaped newline, then text that looks like a diagnostic line.
FORGED = (
    '(gptel-make-tool :name "x" :description "d" :function #\'f :args (list (quote '
    '(:name "a" :type string :description "q" :foo\\\nfake.el:1:1:\\ error:\\ forged 1))))\n'
)
LINE = re.compile(r"^.+?:\d+:\d+: (error|warning|info): .* \[PS\d{3}\]$")


def run(
    *args: str, stdin: str | bytes | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    p = subprocess.run(
        [sys.executable, "-m", "plistspec", "check", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
        timeout=600,
    )
    return p


def test_forged_diagnostic_is_one_escaped_line(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(FORGED, encoding="utf-8")
    p = run(str(f))
    out = p.stdout.decode("utf-8")
    lines = out.splitlines()
    assert lines and all(LINE.match(x) for x in lines), out
    assert not any(x.startswith("fake.el") for x in lines)
    assert "\\nfake.el:1:1: error: forged" in out
    # JSON keeps the exact text
    data = json.loads(run("--output-format", "json", str(f)).stdout)
    assert any("\nfake.el:1:1: error: forged" in d["message"] for d in data)


def test_control_characters_and_raw_bytes_in_messages_and_paths(tmp_path: Path) -> None:
    # a key with CR, ESC and U+2028; a file name with a newline, ESC and a raw byte
    name = os.fsencode(tmp_path) + b"/we\nird\x1b\xff.el"
    with open(name, "wb") as f:
        f.write(
            b'(gptel-make-tool :name "x" :description "d" :function #\'f :args (list \'(:name '
            b'"a" :type string :description "q" :k\\\r\\\x1b\\\xe2\x80\xa8 1)))\n'
        )
    for fmt in ("gnu", "github"):
        p = run("--output-format", fmt, name)  # type: ignore[arg-type]
        assert p.returncode == 0, p.stderr
        out = p.stdout.decode("utf-8")  # valid UTF-8 even with a raw byte in the name
        assert out.count("\n") == len(out.splitlines()) == 1, out
        for ch in ("\r", "\x1b", "\u2028"):
            assert ch not in out
        assert "we\\nird\\x1b\\xff.el" in out
        assert "\\r" in out and "\\x1b" in out and "\\u2028" in out


def test_github_workflow_commands(tmp_path: Path) -> None:
    f = tmp_path / "a,b:c%.el"
    f.write_text(FORGED, encoding="utf-8")
    p = run("--output-format", "github", str(f))
    lines = p.stdout.decode().splitlines()
    assert lines
    pat = re.compile(
        r"^::(error|warning|notice) file=([^,:]+),line=(\d+),col=(\d+),endLine=(\d+),"
        r"endColumn=(\d+),title=(PS\d{3})::(.*)$"
    )
    for line in lines:
        m = pat.match(line)
        assert m, line
        assert m.group(2).endswith("a%2Cb%3Ac%25.el")
        assert "\n" not in m.group(8) and "\r" not in m.group(8)
    assert p.returncode == 0  # only warnings
    # the same positions as the gnu format
    gnu = run("--output-format", "json", str(f))
    data = json.loads(gnu.stdout)
    first = pat.match(lines[0])
    assert first and (int(first.group(3)), int(first.group(4))) == (
        data[0]["line"],
        data[0]["column"],
    )


@pytest.fixture(scope="module")
def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.mark.slow
def test_sarif_is_valid_and_complete(tmp_path: Path, sarif_validator) -> None:
    from plistspec.core.codes import CODES

    bad = tmp_path / "dir with space" / "bad.el"
    bad.parent.mkdir()
    bad.write_text(
        '(gptel-make-tool :function #\'f :description "d" :args (list \'(:name "q" :type '
        'string :required t :enum ("a"))))\n' + FORGED,
        encoding="utf-8",
    )
    p = run("--output-format", "sarif", str(SEED), str(bad), "-")
    assert p.returncode == 1
    log = json.loads(p.stdout)
    sarif_validator.validate(log)
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(CODES)
    results = run_["results"]
    gnu = json.loads(run("--output-format", "json", str(SEED), str(bad), "-").stdout)
    assert len(results) == len(gnu)
    for r, g in zip(results, gnu, strict=True):
        assert r["ruleId"] == g["code"] and rules[r["ruleIndex"]]["id"] == g["code"]
        assert r["message"]["text"] == g["message"]
        region = r["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (g["line"], g["column"])
        assert {"error": "error", "warning": "warning", "info": "note"}[g["severity"]] == r["level"]
        assert ("fixes" in r) == ("fix" in g)
        if "fix" in g:
            rep = r["fixes"][0]["artifactChanges"][0]["replacements"][0]
            assert rep["insertedContent"]["text"] == g["fix"]["replacement"]
            assert rep["deletedRegion"]["startLine"] == g["fix"]["line"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert any(u.startswith("file:///") and "dir%20with%20space/bad.el" in u for u in uris)
    # an empty run is valid too
    empty = json.loads(run("--output-format", "sarif", "--select", "PS411", str(SEED)).stdout)
    sarif_validator.validate(empty)
    assert empty["runs"][0]["results"] == []


@pytest.mark.slow
def test_statistics(tmp_path: Path) -> None:
    f = tmp_path / "s.el"
    f.write_text(
        '(gptel-make-tool :name "t" :description "d" :function #\'f :args (list '
        + " ".join(f'\'(:name "a{i}" :type "string")' for i in range(3))
        + "))\n",
        encoding="utf-8",
    )
    p = run("--statistics", str(f))
    rows = [line.split() for line in p.stdout.decode().splitlines()]
    counts = {r[1]: int(r[0]) for r in rows}
    assert counts == {"PS333": 3, "PS315": 3}
    assert p.stdout.decode().index("PS315") < p.stdout.decode().index("PS333")  # ties: by code
    data = json.loads(run("--statistics", "--output-format", "json", str(f)).stdout)
    assert {d["code"]: (d["count"], d["fixable"]) for d in data} == {
        "PS333": (3, False),
        "PS315": (3, True),
    }


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    p = run("--output-format", "json", "-o", str(out), str(SEED))
    assert p.returncode == 0 and p.stdout == b""
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data and data[0]["code"] == "PS301"
    assert data[0]["fix"]["applicability"] == "unsafe"  # :description: -> :description
    assert not [x for x in os.listdir(tmp_path) if x.startswith(".plistspec-")]
    p = run("-o", str(tmp_path / "missing" / "r.txt"), str(SEED))
    assert p.returncode != 0 and b"Traceback" not in p.stderr and b"PS902" in p.stderr


def test_json_and_sarif_with_a_raw_byte_in_the_name_are_valid_utf8(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/bad\xff.el"
    with open(name, "wb") as f:
        f.write(FORGED.encode("utf-8"))
    for fmt in ("json", "sarif"):
        p = run("--output-format", fmt, name)  # type: ignore[arg-type]
        assert p.returncode == 0, p.stderr
        text = p.stdout.decode("utf-8")  # strict stdout: no traceback, valid UTF-8
        data = json.loads(text)
        if fmt == "json":
            assert data[0]["path"].endswith("bad\udcff.el")  # the exact name, as JSON escapes
        else:
            uri = data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
            assert uri["artifactLocation"]["uri"].endswith("bad%FF.el")


def test_output_file_never_replaces_an_input_or_a_device(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(FORGED, encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(f)
    for out in (str(f), str(link)):
        p = run("-o", out, str(f))
        assert p.returncode == 2 and b"would replace it" in p.stderr
        assert f.read_text(encoding="utf-8") == FORGED
    p = run("-o", "/dev/null", str(f))
    assert p.returncode == 1 and b"not a regular file" in p.stderr and b"[PS902]" in p.stderr


def test_report_is_empty_says_what_render_gives() -> None:
    """The CLI skips loading the report module when the report is empty: it must be."""
    from plistspec.checking.report import render
    from plistspec.core.diagnostics import Diagnostic
    from plistspec.core.formats import REPORT_FORMATS, report_is_empty

    d = Diagnostic("PS333", "warning", "m", 0, 1, path="f.el")
    for fmt in REPORT_FORMATS:
        assert report_is_empty(0, fmt) == (render([], fmt) == "")
        assert not report_is_empty(1, fmt) and render([d], fmt) != ""


def test_a_rewrite_diagnostic_is_the_one_the_constructor_makes() -> None:
    """Diagnostic.rewrite (--lower's hot path) sets every slot as Diagnostic(...) does."""
    from plistspec.core.diagnostics import Diagnostic

    for effect in ("lossless", None):
        a = Diagnostic("PS425", "warning", "m", effect=effect)
        b = Diagnostic.rewrite("PS425", "warning", "m", effect)
        assert [getattr(a, k) for k in Diagnostic.__slots__] == [
            getattr(b, k) for k in Diagnostic.__slots__
        ]
        assert a.to_json() == b.to_json() and a.render() == b.render()
