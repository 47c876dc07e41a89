"""from-py's idea of the Python the tools will run (PS616) against plistspec-bridge.el's own
search, in real Emacs: a project root bounds the .venv search, a .venv others may write is
passed over, the Python of M-x plistspec-install-cli comes before python3."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from plistspec.elisp.printer import print_string
from plistspec.pyfunc.interpreter import bridge_python
from support import ROOT


def _python(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n', encoding="utf-8")
    path.chmod(0o755)
    return path


def _layout(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A home holding: proj (a git project) with proj/src/pkg, a .venv above proj (outside
    the project), a .venv in proj/src others may write, and an installed CLI Python."""
    home = tmp_path / "home"
    pkg = home / "work" / "proj" / "src" / "pkg"
    pkg.mkdir(parents=True)
    (home / "work" / "proj" / ".git").mkdir()
    outside = _python(home / "work" / ".venv" / "bin" / "python")
    planted = _python(home / "work" / "proj" / "src" / ".venv" / "bin" / "python")
    (home / "work" / "proj" / "src" / ".venv").chmod(0o777)
    cli = _python(home / ".emacs.d" / "plistspec" / "venv" / "bin" / "python")
    return pkg, {"outside": outside, "planted": planted, "cli": cli, "home": home}


def _emacs_choice(emacs, home: Path, root: Path) -> str:
    code = (
        "(progn (require 'plistspec-bridge)"
        f"(princ (car (plistspec-bridge--python nil {print_string(str(root) + '/')}))))"
    )
    env = dict(os.environ, HOME=str(home))
    r = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-L", str(ROOT / "elisp"), "--eval", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.emacs
def test_from_py_finds_the_python_plistspec_bridge_finds(emacs, tmp_path, monkeypatch) -> None:
    pkg, p = _layout(tmp_path)
    monkeypatch.setenv("HOME", str(p["home"]))
    # the planted .venv is passed over, the one outside the project is not looked at:
    # the installed CLI's Python
    found, how = bridge_python(str(pkg))
    assert found == str(p["cli"]) and "plistspec-install-cli" in how
    assert _emacs_choice(emacs, p["home"], pkg) == found
    # a safe .venv inside the project is taken
    (p["home"] / "work" / "proj" / "src" / ".venv").chmod(0o755)
    found, how = bridge_python(str(pkg))
    assert found == str(p["planted"]) and ".venv" in how
    assert _emacs_choice(emacs, p["home"], pkg) == found
