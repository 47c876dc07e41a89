"""Issue 31 §4: ``-o``, ``fmt -i`` and ``check --fix`` follow a symbolic link as the
kernel's ``fs.protected_symlinks`` would: never one planted by another user in a sticky
world-writable folder (owned neither by that folder's owner nor by the one writing).

Real folders with mode 1777 and links given to another uid (``os.lchown``: needs root);
the real command line in a subprocess."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile_cli import assert_no_traceback, run

OTHER = 65534  # nobody

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving a link to another user (os.lchown) needs root",
)

# check --fix rewrites :type "string" (a string type) as the symbol; fmt -i lays it out
TOOL = (
    '(gptel-make-tool :name "t" :description "D." :function #\'ignore'
    ' :args (list \'(:name "a" :type "string" :description "A.")))\n'
)


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A sticky world-writable folder like /tmp, owned by us."""
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, 0o1777)
    return d


def _plant(shared: Path, name: str, target: Path, uid: int = OTHER) -> Path:
    link = shared / name
    os.symlink(target, link)
    os.lchown(link, uid, uid)
    return link


def _victim(tmp_path: Path, text: str = "precious\n") -> Path:
    v = tmp_path / "victim"
    v.write_text(text)
    return v


def _leftovers(*dirs: Path) -> list[str]:
    return [p.name for d in dirs for p in d.iterdir() if p.name.startswith(".plistspec-")]


def test_o_refuses_another_users_link_in_a_sticky_folder(tmp_path, shared):
    src = tmp_path / "t.el"
    src.write_text(TOOL)
    victim = _victim(tmp_path)
    link = _plant(shared, "out.json", victim)
    for command in (["to-json", str(src)], ["from-json", "-"]):
        stdin = b'[{"name": "t", "description": "d", "parameters": {}}]'
        r = run(*command, "-o", str(link), stdin=stdin if command[1] == "-" else None)
        assert_no_traceback(r)
        err = r.stderr.decode()
        assert r.returncode != 0, err
        assert f"{link}: error: cannot write:" in err and "[PS902]" in err, err
        assert "protected_symlinks" in err and f"uid {OTHER}" in err, err
    assert victim.read_text() == "precious\n"
    assert os.path.islink(link) and _leftovers(shared, tmp_path) == []


def test_a_link_on_the_way_to_the_folder_counts_too(tmp_path, shared):
    src = tmp_path / "t.el"
    src.write_text(TOOL)
    real = tmp_path / "real"
    real.mkdir()
    _plant(shared, "d", real)
    r = run("to-json", str(src), "-o", str(shared / "d" / "out.json"))
    assert_no_traceback(r)
    assert r.returncode != 0 and b"protected_symlinks" in r.stderr, r.stderr
    assert list(real.iterdir()) == []


@pytest.mark.parametrize("command", [["fmt", "-i"], ["check", "--fix"]])
def test_rewriting_in_place_refuses_it_too(tmp_path, shared, command):
    victim = _victim(tmp_path, TOOL)
    link = _plant(shared, "tools.el", victim)
    r = run(*command, str(link))
    assert_no_traceback(r)
    err = (r.stdout + r.stderr).decode()  # check prints its diagnostics on stdout
    assert r.returncode != 0, err
    assert f"{link}: error:" in err and "protected_symlinks" in err and "[PS902]" in err, err
    assert victim.read_text() == TOOL
    assert _leftovers(shared, tmp_path) == []


@pytest.mark.parametrize("whose", ["mine", "the folder owner's", "anyone's, folder not sticky"])
def test_links_the_kernel_follows_are_followed(tmp_path, shared, whose):
    """docs/files.md: a link to a regular file is followed, its target replaced."""
    src = tmp_path / "t.el"
    src.write_text(TOOL)
    victim = _victim(tmp_path)
    if whose == "mine":
        link = _plant(shared, "out.json", victim, os.geteuid())
    elif whose == "the folder owner's":
        os.chown(shared, OTHER, OTHER)
        link = _plant(shared, "out.json", victim)
    else:
        os.chmod(shared, 0o777)
        link = _plant(shared, "out.json", victim)
    r = run("to-json", str(src), "-o", str(link))
    assert_no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert '"name": "t"' in victim.read_text() and os.path.islink(link)


def test_fmt_i_through_a_followed_link_rewrites_the_target(tmp_path, shared):
    victim = _victim(tmp_path, TOOL)
    link = _plant(shared, "tools.el", victim, os.geteuid())
    r = run("fmt", "-i", str(link))
    assert_no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert victim.read_text() != TOOL and os.path.islink(link)
