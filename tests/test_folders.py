"""Folders given to ``check``, ``fmt`` and ``to-json`` (issue 29 §2), as ruff takes them:
their ``.el`` files, ``.gitignore`` honoured (inside a real git work tree and without
one), the default excludes and the configuration's ``exclude``/``extend-exclude``; the
summary when nothing is reported; ``fmt --check``/``--diff`` exit codes. Each command
runs as a user runs it: ``python -m plistspec`` in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from plistspec.fmt.rewrite import format_text

ROOT = Path(__file__).resolve().parents[1]
# a tool file already in fmt's layout
GOOD = format_text((ROOT / "fixtures" / "elisp" / "get_weather.el").read_text(encoding="utf-8"))[0]
# laid out by hand, not as fmt lays it out: fmt changes it
LOOSE = '(gptel-make-tool :name "loose" :function #\'ignore :description "Loose."\n  :args nil)\n'


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "plistspec", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _tree(tmp: Path) -> Path:
    """A project: two tool files, one in a gitignored folder, one in node_modules, one
    excluded by the configuration, and files that are not Emacs Lisp."""
    p = tmp / "proj"
    for rel, text in {
        "tools.el": GOOD,
        "lisp/more.el": LOOSE,
        "build/generated.el": LOOSE,
        "node_modules/pkg/x.el": LOOSE,
        "test/data/bad.el": '(gptel-make-tool :name "a b" :args 1)\n',
        "notes.md": "# not Elisp\n",
        "setup.py": "print('no')\n",
    }.items():
        f = p / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    (p / ".gitignore").write_text("build/\n*.tmp\n", encoding="utf-8")
    (p / ".plistspec.toml").write_text('extend-exclude = ["test/data"]\n', encoding="utf-8")
    return p


def _git_init(p: Path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed: the git work tree case was not run")
    for args in (["init", "-q"], ["add", "-A"]):
        subprocess.run([git, *args], cwd=p, check=True, timeout=60, capture_output=True)


@pytest.mark.slow
@pytest.mark.parametrize("git", [False, True], ids=["no-git", "git"])
def test_check_a_folder(tmp_path: Path, git: bool) -> None:
    p = _tree(tmp_path)
    if git:
        _git_init(p)
    r = _run("check", ".", "--output-format", "json", cwd=p)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [] and "Is a directory" not in r.stderr
    for args in ((".",), ()):  # no path: the current folder, as `ruff check`
        r = _run("check", *args, cwd=p)
        assert r.returncode == 0 and r.stdout == ""
        assert "All checks passed! 2 files read, 2 tool forms found." in r.stderr
    # the excluded file is read when named, as ruff reads a file it is given
    r = _run("check", "test/data/bad.el", cwd=p)
    assert r.returncode == 1 and "bad.el:1:" in r.stdout
    # --force-exclude (the pre-commit hooks pass it): a named file the excludes match is
    # skipped too, by its folder or its name
    r = _run("check", "--force-exclude", "test/data/bad.el", "tools.el", cwd=p)
    assert r.returncode == 0 and "1 file read" in r.stderr, r.stderr
    r = _run("fmt", "--check", "--force-exclude", "node_modules/pkg/x.el", cwd=p)
    assert r.returncode == 0 and "0 files already formatted" in r.stderr
    # exclude replaces the defaults: node_modules is read again, test/data stays out
    (p / ".plistspec.toml").write_text('exclude = ["test"]\n', encoding="utf-8")
    r = _run("check", ".", cwd=p)
    assert "3 files read" in r.stderr, r.stderr


@pytest.mark.slow
def test_fmt_and_to_json_take_folders(tmp_path: Path) -> None:
    p = _tree(tmp_path)
    r = _run("fmt", "--check", ".", cwd=p)
    assert r.returncode == 1
    assert "Would reformat: lisp/more.el" in r.stderr and "build" not in r.stderr
    assert "1 file would be reformatted, 1 file already formatted" in r.stderr
    r = _run("fmt", "--diff", ".", cwd=p)
    assert r.returncode == 1 and r.stdout.startswith("--- a/lisp/more.el\n+++ b/lisp/more.el\n")
    assert (p / "lisp" / "more.el").read_text(encoding="utf-8") == LOOSE  # nothing written
    # the diff applies with the real patch tool to what fmt writes
    if shutil.which("patch"):
        work = tmp_path / "copy.el"
        work.write_text(LOOSE, encoding="utf-8")
        subprocess.run(
            ["patch", "-s", str(work)], input=r.stdout, text=True, check=True, timeout=60
        )
        fmt_out = _run("fmt", "lisp/more.el", cwd=p).stdout
        assert work.read_text(encoding="utf-8") == fmt_out
    # a folder without --check/--diff is formatted in place, as `ruff format .`
    r = _run("fmt", ".", cwd=p)
    assert r.returncode == 0 and r.stdout == ""
    assert "1 file reformatted, 1 file left unchanged" in r.stderr
    assert (p / "lisp" / "more.el").read_text(encoding="utf-8").startswith("(gptel-make-tool\n")
    assert (p / "build" / "generated.el").read_text(encoding="utf-8") == LOOSE
    r = _run("fmt", "--check", cwd=p)  # no path: the current folder, as `ruff format`
    assert r.returncode == 0 and "2 files already formatted" in r.stderr
    r = _run("fmt", "--diff", ".", cwd=p)
    assert r.returncode == 0 and r.stdout == ""
    r = _run("to-json", "-t", "openai", ".", cwd=p)
    assert r.returncode == 0, r.stderr
    assert sorted(t["function"]["name"] for t in json.loads(r.stdout)) == ["get_weather", "loose"]


def test_fmt_check_and_diff_exit_codes(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from plistspec.cli import main

    f = tmp_path / "a.el"
    f.write_text(LOOSE, encoding="utf-8")
    r = CliRunner().invoke(main, ["fmt", "--diff", str(f)])
    assert r.exit_code == 1 and "+++ b/" in r.stdout and f.read_text(encoding="utf-8") == LOOSE
    assert "1 file would be reformatted" in r.stderr
    r = CliRunner().invoke(main, ["fmt", "--check", str(f)])
    assert r.exit_code == 1 and f"Would reformat: {f}" in r.stderr and r.stdout == ""
    assert CliRunner().invoke(main, ["fmt", "--diff", "-i", str(f)]).exit_code == 2
    assert CliRunner().invoke(main, ["fmt", "-i", str(f)]).exit_code == 0
    for flag in ("--check", "--diff"):
        r = CliRunner().invoke(main, ["fmt", flag, str(f)])
        assert r.exit_code == 0 and r.stdout == "" and "1 file already formatted" in r.stderr


def test_empty_folder_says_so(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from plistspec.cli import main

    (tmp_path / "readme.md").write_text("# nothing\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert r.exit_code == 0 and "no Emacs Lisp files found under" in r.stderr
    assert "Is a directory" not in r.stderr


def test_gitignore_matcher(tmp_path: Path) -> None:
    """The matcher used outside git: negation, anchoring, folders only, ``**``."""
    from plistspec.checking.files import _GitIgnore

    (tmp_path / ".gitignore").write_text(
        "# c\n*.elc\n/top.el\nout/\ndocs/**/gen-*.el\n!keep.elc\n", encoding="utf-8"
    )
    gi = _GitIgnore(str(tmp_path))
    assert gi.match("a.elc", False) and gi.match("x/y/a.elc", False)
    assert gi.match("keep.elc", False) is False
    assert gi.match("top.el", False) and gi.match("x/top.el", False) is None
    assert gi.match("out", True) and gi.match("out", False) is None
    assert gi.match("docs/a/b/gen-x.el", False) and gi.match("docs/gen-x.el", False)
    assert gi.match("docs/a/other.el", False) is None
