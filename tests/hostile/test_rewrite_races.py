"""``fmt -i`` and ``check --fix`` never lose an edit saved while they run, and never write
through a symbolic link (or into a directory) that appeared after they read the file.

The change happens for real on disk, at the point between plistspec's read and its write:
the function that does the work in between is wrapped so that, when it returns, the file
has been edited in place, saved by rename, replaced by a symbolic link, or its directory
swapped. One test runs plistspec in its own process on a big file while a second process
keeps appending lines to it, and checks that every line appended is still there."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from plistspec.cli import main

# fmt lays this out (one key per line), check --fix fixes :type "string" (a safe fix)
TOOL = '(gptel-make-tool :name "t" :description "D." :function #\'ignore :args (list \'(:name "a" :type "string" :description "A.")))\n'


def _edit_in_place(f: Path) -> None:
    with open(f, "a", encoding="utf-8") as h:
        h.write(";; saved meanwhile\n")


def _save_by_rename(f: Path) -> None:
    new = f.with_name(f.name + ".new")
    new.write_text(f.read_text(encoding="utf-8") + ";; saved meanwhile\n", encoding="utf-8")
    os.replace(new, f)


def _touch(f: Path) -> None:
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


CHANGES = {"edit-in-place": _edit_in_place, "save-by-rename": _save_by_rename, "touch": _touch}


def _run(args: list[str], f: Path, change, monkeypatch, command: str):
    """Run the command in-process; ``change(f)`` happens after the read, before the write."""
    if command == "fmt":
        import plistspec.cli.fmt_cmd as mod

        name = "_format_one"
    else:
        import plistspec.checking.fixes as mod

        name = "fix_text"
    real = getattr(mod, name)

    def between(*a, **k):
        out = real(*a, **k)
        change(f)
        return out

    monkeypatch.setattr(mod, name, between)
    return CliRunner().invoke(main, args)


ARGS = {"fmt": ["fmt", "-i"], "fix": ["check", "--fix"]}


@pytest.mark.parametrize("command", ["fmt", "fix"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_an_edit_saved_meanwhile_is_not_lost(tmp_path, monkeypatch, command, change) -> None:
    f = tmp_path / "tools.el"
    f.write_text(TOOL, encoding="utf-8")
    r = _run([*ARGS[command], str(f)], f, CHANGES[change], monkeypatch, command)
    assert r.exit_code == 1, r.output
    assert "PS904" in r.output and str(f) in r.output and "Traceback" not in r.output
    if change != "touch":
        assert f.read_text(encoding="utf-8") == TOOL + ";; saved meanwhile\n"
    else:
        assert f.read_text(encoding="utf-8") == TOOL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tools.el"]  # no temporary file


@pytest.mark.parametrize("command", ["fmt", "fix"])
def test_without_a_change_the_file_is_rewritten(tmp_path, monkeypatch, command) -> None:
    f = tmp_path / "tools.el"
    f.write_text(TOOL, encoding="utf-8")
    r = _run([*ARGS[command], str(f)], f, lambda f: None, monkeypatch, command)
    assert r.exit_code == 0, r.output
    assert f.read_text(encoding="utf-8") != TOOL and "PS904" not in r.output


@pytest.mark.parametrize("command", ["fmt", "fix"])
@pytest.mark.parametrize("linked", [False, True])
def test_a_link_that_appears_after_the_read_is_never_followed(
    tmp_path, monkeypatch, command, linked
) -> None:
    """The file (or, when it was read through a link, the link) is replaced by a symbolic
    link to another file: that file is not written."""
    victim = tmp_path / "victim.el"
    victim.write_text(TOOL, encoding="utf-8")
    real = tmp_path / "real.el"
    real.write_text(TOOL, encoding="utf-8")
    f = tmp_path / "tools.el"
    if linked:
        f.symlink_to(real)
    else:
        f.write_text(TOOL, encoding="utf-8")

    def swap(f: Path) -> None:
        f.unlink()
        f.symlink_to(victim)

    r = _run([*ARGS[command], str(f)], f, swap, monkeypatch, command)
    assert r.exit_code == 1 and "PS904" in r.output, r.output
    assert victim.read_text(encoding="utf-8") == TOOL
    assert real.read_text(encoding="utf-8") == TOOL
    assert f.is_symlink() and os.readlink(f) == str(victim)


@pytest.mark.parametrize("command", ["fmt", "fix"])
def test_a_directory_swapped_in_the_path_is_not_written_into(
    tmp_path, monkeypatch, command
) -> None:
    d = tmp_path / "proj"
    d.mkdir()
    f = d / "tools.el"
    f.write_text(TOOL, encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    (other / "tools.el").write_text(TOOL, encoding="utf-8")

    def swap(_: Path) -> None:
        d.rename(tmp_path / "moved")
        d.symlink_to(other)

    r = _run([*ARGS[command], str(f)], f, swap, monkeypatch, command)
    assert r.exit_code == 1 and "PS904" in r.output, r.output
    assert (other / "tools.el").read_text(encoding="utf-8") == TOOL
    assert (tmp_path / "moved" / "tools.el").read_text(encoding="utf-8") == TOOL


@pytest.mark.parametrize("command", ["fmt", "fix"])
def test_a_hard_linked_file_edited_meanwhile_is_not_rewritten(
    tmp_path, monkeypatch, command
) -> None:
    """A file with several links is written in place: the check is on the descriptor."""
    f = tmp_path / "tools.el"
    f.write_text(TOOL, encoding="utf-8")
    os.link(f, tmp_path / "other-name.el")
    r = _run([*ARGS[command], str(f)], f, _edit_in_place, monkeypatch, command)
    assert r.exit_code == 1 and "PS904" in r.output, r.output
    assert (tmp_path / "other-name.el").read_text(encoding="utf-8") == TOOL + (
        ";; saved meanwhile\n"
    )


@pytest.mark.parametrize("command", ["fmt", "fix"])
def test_appends_from_another_process_are_never_lost(tmp_path, command) -> None:
    """A real second process appends a numbered line every few milliseconds while
    plistspec (its own process) reads, works on and rewrites a big file."""
    f = tmp_path / "tools.el"
    f.write_text("".join(TOOL.replace('"t"', f'"t{i}"') for i in range(3000)), encoding="utf-8")
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "n = 0\n"
            "while True:\n"
            "    with open(sys.argv[1], 'a') as h:\n"
            "        h.write(f';; line {n}\\n')\n"
            "    print(n, flush=True)\n"
            "    n += 1\n"
            "    time.sleep(0.005)\n",
            str(f),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(0.05)
        r = subprocess.run(
            [sys.executable, "-m", "plistspec", *ARGS[command], str(f)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        writer.terminate()
        out, _ = writer.communicate(timeout=30)
    written = [int(x) for x in out.split()]
    assert len(written) > 20  # the writer ran all along
    assert r.returncode == 1 and "PS904" in r.stdout + r.stderr, r.stderr[-2000:]
    text = f.read_text(encoding="utf-8")
    assert all(f";; line {n}\n" in text for n in written)
