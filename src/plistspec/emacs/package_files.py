"""Where the Emacs package installed with plistspec is: the directory to put on ``load-path``.

The wheel carries the whole Emacs package (``plistspec.el``, ``plistspec-bridge.el`` and
the rest of ``elisp/`` but its tests) as package data in ``plistspec/emacs/lisp/``; in a
checkout that folder is a symbolic link to ``elisp/``. The files ``from-py`` writes
require ``plistspec-bridge`` from there.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["lisp_directory"]

# the entry point of the package, and the library the files from-py writes require
_REQUIRED = ("plistspec.el", "plistspec-bridge.el")


def lisp_directory() -> Path:
    """The directory holding the Emacs package (links resolved: a checkout's ``elisp/``).

    Raises ``FileNotFoundError`` naming what is missing when this install carries no
    Emacs package (a wheel built without it)."""
    folder = (Path(__file__).parent / "lisp").resolve()
    missing = [name for name in _REQUIRED if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"this plistspec has no Emacs package: {', '.join(missing)} missing in {folder}"
        )
    return folder
