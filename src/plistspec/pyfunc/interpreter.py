"""Which Python the tools ``from-py`` writes will run, as ``plistspec-bridge.el`` finds it.

Owns: :func:`bridge_python` (the same search the Emacs side makes when a tool is called:
the nearest safe ``.venv`` above the modules' directory, up to their project root or the
home directory, else the Python of ``M-x plistspec-install-cli``, else ``python3`` on the
path) and :func:`python_warning` (PS616, when that is not the Python running
``from-py``, the one known to have plistspec). A generated file names no interpreter
unless ``--python`` is given, so that it can be committed and used on another machine.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys

from plistspec.core.diagnostics import Diagnostic

__all__ = ["bridge_python", "python_warning"]

# relative to a directory, in the order plistspec-bridge.el tries them
VENV_PYTHONS = (".venv/bin/python", ".venv/Scripts/python.exe")
# what makes a directory a project root for project.el's VC backend
_VC_MARKERS = (".git", ".hg", ".bzr", ".svn", "_darcs", ".fslckout")


def _unsafe(path: str) -> bool:
    """plistspec-bridge--unsafe: another user than you or root owns ``path``, or others
    may write it (group write only for a group not your own); a link's modes do not count."""
    try:
        st = os.lstat(path)
    except OSError:
        return True
    if hasattr(os, "getuid") and st.st_uid not in (0, os.getuid()):
        return True
    if stat.S_ISLNK(st.st_mode):
        return False
    group_other = hasattr(os, "getgid") and st.st_gid != os.getgid()
    return bool(st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP and group_other))


def _search_top(d: str) -> str | None:
    """plistspec-bridge--search-top: the project root (nearest VC root), else the home
    directory when ``d`` is inside it, else None."""
    up = d
    while True:
        if any(os.path.exists(os.path.join(up, m)) for m in _VC_MARKERS):
            return up
        parent = os.path.dirname(up)
        if parent == up:
            break
        up = parent
    home = os.path.expanduser("~")
    if d == home or d.startswith(home.rstrip(os.sep) + os.sep):
        return home
    return None


def _installed_python() -> str | None:
    """The Python of ``M-x plistspec-install-cli`` (``plistspec-cli-directory``'s default)."""
    home = os.path.expanduser("~")
    for emacs_dir in (os.path.join(home, ".emacs.d"), os.path.join(home, ".config", "emacs")):
        p = os.path.join(emacs_dir, "plistspec", "venv", "bin", "python")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def bridge_python(root: str) -> tuple[str | None, str]:
    """``(program, how it was found)`` as the Emacs side finds it for modules imported
    from ``root`` (without ``plistspec-bridge-python`` set)."""
    d = os.path.abspath(root)
    top = _search_top(d)
    while not _unsafe(d):
        for rel in VENV_PYTHONS:
            p = os.path.join(d, rel)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                venv = os.path.join(d, ".venv")
                if not any(map(_unsafe, (venv, os.path.dirname(p), p))):
                    return p, f"the nearest .venv above {root}"
        up = os.path.dirname(d)
        if d == top or up == d:
            break
        d = up
    installed = _installed_python()
    if installed is not None:
        return installed, "the Python M-x plistspec-install-cli made"
    return shutil.which("python3"), "python3 on the path"


def _environment(python: str) -> str:
    """What a Python program runs in: its virtual environment, else the program itself."""
    env = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    if os.path.isfile(os.path.join(env, "pyvenv.cfg")):
        return os.path.realpath(env)
    return os.path.realpath(python)


def python_warning(root: str) -> Diagnostic | None:
    """PS616 when the tools written for modules in ``root`` would run another Python than
    this one (which has plistspec), or none at all; None when it is this one."""
    found, how = bridge_python(root)
    mine = sys.executable
    if found is not None and _environment(found) == _environment(mine):
        return None
    where = f"{found} ({how})" if found else f"no Python ({how}: none)"
    return Diagnostic(
        "PS616",
        "warning",
        f"the tools will run {where}, not this Python ({mine}), and it needs plistspec "
        "installed: set plistspec-bridge-python in Emacs, or pass --python (its path is "
        "then written into the file)",
    )
