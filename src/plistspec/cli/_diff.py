"""Unified diffs of a file's text before and after a rewrite (``check --diff``, ``fmt --diff``).

Owns: :func:`print_diff`, a patch ``git apply`` and ``patch -p1`` accept, written to
standard output as the file's own bytes.
"""

from __future__ import annotations

import sys

__all__ = ["print_diff"]


def _lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` only, as ``git apply`` and ``patch`` count lines: a
    CR, form feed, vertical tab, U+0085 or U+2028 stays inside its line."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def print_diff(name: str, before: str, after: str) -> None:
    """A unified diff ``git apply`` and ``patch -p1`` accept: ``before``/``after`` are the
    file's text as stored (BOM, CRLF, raw bytes), written to stdout as those bytes."""
    import difflib

    from plistspec.cli._io import write_stdout
    from plistspec.core.lines import one_line

    label = one_line(name)
    lines = difflib.unified_diff(
        _lines(before), _lines(after), fromfile=f"a/{label}", tofile=f"b/{label}"
    )
    chunks = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        chunks.append(line.encode("utf-8", "surrogateescape"))
    sys.stdout.flush()
    write_stdout(chunks)
