"""Issue 13 §3: ``-o`` never replaces what is not a regular file, never the input, and
never leaves a temporary file; ``fmt -i`` keeps what the file is."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hostile_cli import TOOL, assert_no_traceback, run


def _leftovers(d: Path) -> list[str]:
    return [p.name for p in d.iterdir() if p.name.startswith(".plistspec-")]


@pytest.fixture
def tool(tmp_path: Path) -> Path:
    f = tmp_path / "t.el"
    f.write_text(TOOL)
    return f


def test_o_refuses_a_character_device(tool: Path) -> None:
    r = run("to-json", str(tool), "-o", "/dev/null")
    assert_no_traceback(r)
    assert r.returncode == 1 and b"not a regular file" in r.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_o_refuses_a_fifo_and_a_directory(tool: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path):
        r = run("to-json", str(tool), "-o", str(target))
        assert_no_traceback(r)
        assert r.returncode == 1, target
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _leftovers(tmp_path) == []


def test_o_refuses_the_input_file_itself(tool: Path, tmp_path: Path) -> None:
    link = tmp_path / "same.el"
    os.link(tool, link)  # the same inode under another name
    for target in (tool, link):
        r = run("to-json", str(tool), "-o", str(target))
        assert r.returncode == 1 and b"input file" in r.stderr
    assert tool.read_text() == TOOL


def test_o_symlinks(tool: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    good = tmp_path / "good.json"
    good.symlink_to(real)
    r = run("to-json", str(tool), "-o", str(good))
    assert r.returncode == 0, r.stderr
    assert good.is_symlink() and '"name": "a"' in real.read_text()
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere")
    to_stdout = tmp_path / "stdout.json"
    to_stdout.symlink_to("/dev/stdout")
    for link in (dangling, to_stdout):
        r = run("to-json", str(tool), "-o", str(link))
        assert_no_traceback(r)
        assert r.returncode == 1 and b"symbolic link" in r.stderr, link
        assert link.is_symlink()
    assert not (tmp_path / "nowhere").exists()
    assert _leftovers(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "target", ["/nonexistent-dir/x.json", "/proc/x", "/proc/self/fd/1", b"\xff\xfe.json"]
)
def test_o_unwritable_places_are_messages(tool: Path, tmp_path: Path, target) -> None:
    if isinstance(target, bytes):
        target = os.fsdecode(bytes(tmp_path) + b"/" + target)
    r = run("to-json", str(tool), "-o", target)
    assert_no_traceback(r)
    assert _leftovers(tmp_path) == []
    if r.returncode == 0:  # the non-UTF-8 name is a fine name
        assert Path(target).read_text().startswith("[")
    else:
        assert b"PS902" in r.stderr


def test_o_into_a_read_only_directory(tool: Path, tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = run("to-json", str(tool), "-o", str(ro / "x.json"))
        assert_no_traceback(r)
        if os.geteuid() != 0:  # root writes anyway
            assert r.returncode == 1 and b"PS902" in r.stderr
        assert _leftovers(ro) == []
    finally:
        ro.chmod(0o755)


def test_o_keeps_the_mode_of_the_file_it_replaces(tool: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    out.write_text("old")
    out.chmod(0o640)
    assert run("to-json", str(tool), "-o", str(out)).returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


CRLF_TOOL = (
    ';; header\r\n(gptel-make-tool :name "a" :function #\'ignore\r\n'
    ' :description "line1\r\nline2" :args (list \'(:name "x" :type integer'
    ' :description "y")) :category "c")\r\n;; tail\r\n'
)


def test_fmt_in_place_keeps_crlf_everywhere(tmp_path: Path) -> None:
    f = tmp_path / "crlf.el"
    f.write_bytes(CRLF_TOOL.encode())
    r = run("fmt", "-i", str(f))
    assert r.returncode == 0, r.stderr
    data = f.read_bytes()
    assert data != CRLF_TOOL.encode()  # it was laid out
    assert data.count(b"\n") == data.count(b"\r\n") > 5  # no bare LF anywhere
    # the string's value is what Emacs read before: "line1\nline2"
    assert b'"line1\\nline2"' in data or b'"line1\r\nline2"' in data


def test_fmt_stdout_keeps_cr_only_and_bom(tmp_path: Path) -> None:
    f = tmp_path / "mac.el"
    f.write_bytes(b"\xef\xbb\xbf" + CRLF_TOOL.replace("\r\n", "\r").encode())
    r = run("fmt", str(f))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"\xef\xbb\xbf;; header\r(gptel-make-tool\r")
    assert b"\n" not in r.stdout


def _tool_file(path: Path) -> None:
    path.write_text(TOOL.replace("\n  ", " "))


def test_fmt_in_place_keeps_mode_setgid_owner_bom(tmp_path: Path) -> None:
    f = tmp_path / "sg.el"
    f.write_bytes(b"\xef\xbb\xbf" + TOOL.replace("\n  ", " ").encode())
    if os.geteuid() == 0:
        os.chown(f, 1234, 1234)
    f.chmod(0o2750)
    before = f.stat()
    assert run("fmt", "-i", str(f)).returncode == 0
    after = f.stat()
    assert f.read_bytes().startswith(b"\xef\xbb\xbf(gptel-make-tool\n")
    assert stat.S_IMODE(after.st_mode) == 0o2750
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


@pytest.mark.slow
def test_fmt_in_place_keeps_hard_links_and_symlinks(tmp_path: Path) -> None:
    a = tmp_path / "a.el"
    _tool_file(a)
    b = tmp_path / "b.el"
    os.link(a, b)
    assert run("fmt", "-i", str(a)).returncode == 0
    assert os.path.samefile(a, b) and b.read_text().startswith("(gptel-make-tool\n")
    target = tmp_path / "target.el"
    _tool_file(target)
    link = tmp_path / "link.el"
    link.symlink_to(target)
    assert run("fmt", "-i", str(link)).returncode == 0
    assert link.is_symlink() and target.read_text().startswith("(gptel-make-tool\n")
    assert _leftovers(tmp_path) == []


def test_fmt_in_place_refuses_read_only_files(tmp_path: Path) -> None:
    f = tmp_path / "ro.el"
    _tool_file(f)
    f.chmod(0o444)
    before = f.read_text()
    r = run("fmt", "-i", str(f))
    assert_no_traceback(r)
    assert r.returncode == 1 and b"read-only" in r.stderr
    assert f.read_text() == before


def test_fmt_leaves_forms_with_check_errors_alone(tmp_path: Path) -> None:
    f = tmp_path / "bad.el"
    bad = TOOL.replace('"a"', '"a b"').replace("\n  ", " ")
    f.write_text(bad + TOOL.replace("\n  ", " "))
    assert b"error" in run("check", str(f)).stdout
    r = run("fmt", "-i", str(f))
    assert r.returncode == 0, r.stderr
    text = f.read_text()
    assert text.startswith(bad)  # the form check calls an error: untouched
    assert text[len(bad) :].startswith("(gptel-make-tool\n")  # the good one: laid out


def test_fmt_info_for_syntax_it_does_not_read(tmp_path: Path) -> None:
    f = tmp_path / "hs.el"
    f.write_text('(setq h #s(hash-table data (a 1)))\n(x #[1 2] #^[nil] #("a" 0 1 nil))\n' + TOOL)
    for cmd in ("fmt", "check"):
        r = run(cmd, str(f))
        out = r.stdout + r.stderr
        assert r.returncode == 0, out
        assert b"info:" in out and b"error" not in out
    assert b"(gptel-make-tool\n :name" in run("fmt", str(f)).stdout


def test_o_refuses_a_read_only_file(tool: Path, tmp_path: Path) -> None:
    out = tmp_path / "ro.json"
    out.write_text("keep")
    out.chmod(0o444)
    r = run("to-json", str(tool), "-o", str(out))
    assert_no_traceback(r)
    assert r.returncode == 1 and b"read-only" in r.stderr
    assert out.read_text() == "keep"


@pytest.mark.slow
@pytest.mark.emacs
@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_fmt_in_place_changes_nothing_emacs_reads(emacs, tmp_path: Path, eol: str) -> None:
    """Emacs loads the CRLF / CR-only file before and after `fmt -i`: same tool spec."""
    f = tmp_path / "e.el"
    f.write_bytes(CRLF_TOOL.replace("\r\n", eol).encode())
    probe = f"""(defvar seen nil)
(defun gptel-make-tool (&rest args) (push args seen))
(load "{f}" nil t t)
(let ((print-escape-newlines t) (print-escape-control-characters t))
  (princ (prin1-to-string seen)))"""
    before = emacs.run(probe)
    assert "line1\\nline2" in before and "\\15" not in before  # no CR kept
    assert run("fmt", "-i", str(f)).returncode == 0
    assert f.read_bytes() != CRLF_TOOL.replace("\r\n", eol).encode()
    assert emacs.run(probe) == before


@pytest.mark.slow
def test_o_never_replaces_the_module_from_py_reads(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    src = 'def f(x: int) -> int:\n    """Doc."""\n    return x\n'
    mod.write_text(src)
    for args in (("-o", "m.py"), ("--output=m.py",), ("-o", str(mod))):
        r = run("from-py", "m.py:f", *args, cwd=tmp_path)
        assert_no_traceback(r)
        assert r.returncode == 1 and b"input file" in r.stderr
    assert mod.read_text() == src
    assert run("from-py", "m.py:f", "-o", "out.el", cwd=tmp_path).returncode == 0


def test_from_py_never_replaces_a_module_named_by_its_import_name(tmp_path: Path) -> None:
    """``mod:f``, ``mod``, ``pkg.mod:f``: the module file is an input of the run too."""
    src = 'def f(x: int) -> int:\n    """Doc."""\n    return x\n'
    (tmp_path / "mod.py").write_text(src)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub.py").write_text(src)
    for target, out in (
        ("mod:f", "mod.py"),
        ("mod", "./mod.py"),
        ("pkg.sub:f", "pkg/sub.py"),
        ("pkg.sub", str(tmp_path / "pkg" / "sub.py")),
    ):
        r = run("from-py", target, "-o", out, cwd=tmp_path)
        assert_no_traceback(r)
        assert r.returncode == 1 and b"input file" in r.stderr, (target, r.stderr)
    assert (tmp_path / "mod.py").read_text() == src
    assert (tmp_path / "pkg" / "sub.py").read_text() == src
    assert run("from-py", "mod:f", "-o", "tools.el", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("cmd", ["from-json", "from-py"])
@pytest.mark.parametrize("name", [b"x\x85.el", b"x\xe2\x80\xae.el", b"x\n.el"])
def test_o_name_that_gives_no_feature_is_a_clear_error(tmp_path: Path, cmd, name) -> None:
    """A name that is not UTF-8 (or holds a bidi control or a newline) gives no feature
    symbol Emacs Lisp can write visibly: one clear error naming it, nothing written;
    --feature makes it work."""
    import json
    import subprocess
    import sys

    (tmp_path / "mod.py").write_text('def f(x: int) -> int:\n    """Doc."""\n    return x\n')
    tool = {"name": "a", "description": "d", "parameters": {"type": "object"}}
    (tmp_path / "in.json").write_text(json.dumps([{"type": "function", "function": tool}]))
    src = {"from-json": b"in.json", "from-py": b"mod:f"}[cmd]
    args = [sys.executable.encode(), b"-m", b"plistspec", cmd.encode(), src, b"-o", name]
    r = subprocess.run(args, cwd=tmp_path, capture_output=True, timeout=120)
    assert_no_traceback(r)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 1 and "PS526" in err and "--feature" in err and "PS903" not in err
    assert err.count("\n") == 1
    assert sorted(os.listdir(tmp_path)) == ["in.json", "mod.py"]
    r = subprocess.run(
        args + [b"--feature", b"my-tools"], cwd=tmp_path, capture_output=True, timeout=600
    )
    assert r.returncode == 0, r.stderr
    written = (tmp_path / os.fsdecode(name)).read_bytes()
    assert b"(provide 'my-tools)" in written and b"\x85" not in written
    assert "\u202e".encode() not in written


def test_mixed_line_endings_are_never_rewritten(tmp_path: Path) -> None:
    """A -dos cookie on a file with bare LFs: encoding the text would turn every LF into
    CRLF, so neither check --fix nor fmt rewrites it, and both print its bytes unchanged."""
    data = (
        b";; -*- coding: utf-8-dos -*-\r\n;; a bare LF here\n"
        b'(gptel-make-tool :name "a" :function #\'ignore :description "d"'
        b' :args (list \'(:name "x" :type "string" :description "x")))\n'
    )
    f = tmp_path / "mixed.el"
    f.write_bytes(data)
    r = run("check", "--fix", str(f))
    assert_no_traceback(r)
    assert r.returncode == 1 and b"mixed line endings" in r.stdout and f.read_bytes() == data
    r = run("check", "--fix", "-", stdin=data)
    assert r.stdout == data and b"mixed line endings" in r.stderr
    r = run("fmt", str(f))
    assert r.returncode == 1 and r.stdout == data
    r = run("fmt", "-i", str(f))
    assert r.returncode == 1 and f.read_bytes() == data
