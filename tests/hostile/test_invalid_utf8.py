"""A file that is not valid UTF-8 is read as Emacs reads it, with a PS001 warning: every
command reads its tools (``check``, ``to-json``, ``fmt``, ``check --fix``), and ``fmt``
and ``--fix`` write the raw bytes back as they were. The reading is Emacs's: the same
strings, raw bytes included, as ``emacs --batch`` reads from the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from plistspec.cli import main

COOKIE = b";; -*- coding: utf-8 -*-\n"
# fmt lays this out; check --fix fixes :type "string"
TOOL = (
    b'(gptel-make-tool :name "t" :description "D." :function #\'ignore'
    b' :args (list \'(:name "a" :type "string" :description "A.")))\n'
)
FILES = {
    "comment": b";; caf\xe9\n" + TOOL + b";; \xff\xfe end\n",
    "cookie": COOKIE + b";; caf\xe9\n" + TOOL + b";; \xff\n",
    "body": b'(gptel-make-tool :name "t" :description "D." :function (lambda (_a) "caf\xe9")'
    b' :args (list \'(:name "a" :type "string" :description "A.")))\n',
}


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("case", sorted(FILES))
def test_every_command_reads_the_tools_with_a_warning(tmp_path: Path, case: str) -> None:
    f = tmp_path / "t.el"
    f.write_bytes(FILES[case])
    clean = tmp_path / "clean.el"  # the same tools without the invalid bytes
    clean.write_bytes(
        FILES[case].replace(b"\xe9", b"e").replace(b"\xff", b"").replace(b"\xfe", b"")
    )
    r = _run("check", "--output-format", "json", str(f))
    found = json.loads(r.stdout)
    assert [d["code"] for d in found] == ["PS001", "PS315"] and r.exit_code == 0
    assert found[0]["severity"] == "warning" and "raw byte" in found[0]["message"]
    r = _run("to-json", "-t", "openai", str(f))
    assert r.exit_code == 0 and "PS001" in r.stderr and "warning" in r.stderr
    assert json.loads(r.stdout) == json.loads(_run("to-json", "-t", "openai", str(clean)).stdout)
    r = _run("fmt", str(f))
    assert r.exit_code == 0 and "PS001" in r.stderr
    out = r.stdout_bytes
    assert out != FILES[case] and out.count(b"\n") > FILES[case].count(b"\n")  # laid out
    for raw in (b"caf\xe9", b"\xff"):
        assert (raw in out) == (raw in FILES[case])


@pytest.mark.parametrize("case", sorted(FILES))
def test_rewrites_keep_the_raw_bytes(tmp_path: Path, case: str) -> None:
    data = FILES[case]
    f = tmp_path / "t.el"
    f.write_bytes(data)
    r = _run("check", "--fix", str(f))
    assert r.exit_code == 0, r.output
    assert f.read_bytes() == data.replace(b':type "string"', b":type string")
    f.write_bytes(data)
    r = _run("fmt", "-i", str(f))
    assert r.exit_code == 0, r.output
    new = f.read_bytes()
    assert new != data
    start, end = data.index(b"(gptel-make-tool"), data.index(b")))\n") + 4
    assert new.startswith(data[:start]) and new.endswith(data[end:])  # only the form moved
    if case == "body":
        assert b'(lambda (_a) "caf\xe9")' in new


@pytest.mark.emacs
def test_strings_with_raw_bytes_read_as_emacs_reads_them(emacs, tmp_path: Path) -> None:
    """Emacs (the file says coding: utf-8) reads each invalid byte as a raw-byte character
    (#x3FFF00 + byte); plistspec's reader gives the same characters."""
    from plistspec.elisp.datum import String
    from plistspec.elisp.reader import read_all
    from plistspec.elisp.source import buffer_text

    data = COOKIE + b';; caf\xe9\n(setq probe "a\xe9b\xff\xc3\xa9 \\351")\n;; \xfe\n'
    f = tmp_path / "p.el"
    f.write_bytes(data)
    got = emacs.run(
        f"(load {json.dumps(str(f))} nil t)\n"
        '(princ (mapconcat #\'number-to-string (string-to-list probe) " "))'
    )
    text = buffer_text(data).text
    (form,) = read_all(text)
    value = form.items[2]
    assert type(value) is String
    mine = [
        0x3FFF00 + ord(c) - 0xDC00 if 0xDC80 <= ord(c) <= 0xDCFF else ord(c) for c in value.value
    ]
    assert [int(x) for x in got.split()] == mine
    assert mine.count(0x3FFFE9) == 2 and 0xE9 in mine  # raw bytes (\\351 too), and é
