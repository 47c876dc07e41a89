"""Which Python the tools ``from-py`` writes will run, as ``plistspec-bridge.el`` finds it.

Owns: :func:`bridge_python` (the same search the Emacs side makes when a tool is called:
the nearest ``.venv`` above the modules' directory, else ``python3`` on the path) and
:func:`python_warning` (PS616, when that is not the Python running ``from-py``, the one
known to have plistspec). A generated file names no interpreter unless ``--python`` is
given, so that it can be committed and used on another machine.
"""

from __future__ import annotations

import os
import shutil
import sys

from plistspec.core.diagnostics import Diagnostic

__all__ = ["bridge_python", "python_warning"]

# relative to a directory, in the order plistspec-bridge.el tries them
VENV_PYTHONS = (".venv/bin/python", ".venv/Scripts/python.exe")


def bridge_python(root: str) -> tuple[str | None, str]:
    """``(program, how it was found)`` as the Emacs side finds it for modules imported
    from ``root`` (without ``plistspec-bridge-python`` set)."""
    d = os.path.abspath(root)
    while True:
        for rel in VENV_PYTHONS:
            p = os.path.join(d, rel)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p, f"the nearest .venv above {root}"
        up = os.path.dirname(d)
        if up == d:
            break
        d = up
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
