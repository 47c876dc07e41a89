"""Where the declarative data of ``grammars/`` is, from wherever plistspec runs.

Owns: :func:`grammar_path`, the one place that finds a grammar file. The data lives at the
top of the repository (``grammars/``); the package reaches it through the link
``src/plistspec/grammars`` (a source tree, an editable install), and a wheel carries it as
package data in ``plistspec/grammars`` (the globs of ``[tool.setuptools.package-data]`` in
pyproject.toml: a new kind of grammar file needs its glob there). Where the link is not
followed (a checkout without symbolic links), the directories above are searched.

Paths are ``str`` made with :mod:`os.path`: ``check`` reads ``codes.json`` on its way, and
importing :mod:`pathlib` would cost it about 5 ms.
"""

from __future__ import annotations

import os
from functools import cache

__all__ = ["grammar_path"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


@cache
def grammar_path(name: str) -> str:
    """The path of ``grammars/NAME`` (``NAME`` may hold ``/``: ``providers/rules.json``; a
    directory is found too). :class:`FileNotFoundError` when no ``grammars/`` holds it."""
    parent = _PACKAGE
    while True:
        cand = os.path.join(parent, "grammars", *name.split("/"))
        if os.path.exists(cand):
            return cand
        up = os.path.dirname(parent)
        if up == parent:
            raise FileNotFoundError(f"grammars/{name} not found (searched from {_PACKAGE})")
        parent = up
