"""The file frame around tool forms: a whole ``.el`` file of tools.

Owns: :func:`to_elisp`: the header line, Commentary, ``require``, the forms (with the
``;;`` comments carrying what has no slot), and the footer. Every text taken from input
(names, titles, annotations) goes into a comment through
:func:`plistspec.elisp.comment.comment_text`.
"""

from __future__ import annotations

import json
from typing import Any

from plistspec.diagnostics import Diagnostic
from plistspec.emit_elisp.forms import HEADS, label, write_form
from plistspec.emit_elisp.layout import Writer
from plistspec.ir import Tool
from plistspec.trampoline import run as _run

__all__ = ["to_elisp"]


def _comments(tool: Tool, w: Writer) -> list[str]:
    meta = tool.get("metadata") or {}
    out = []
    if "title" in meta:
        out.append(";; MCP title: " + json.dumps(meta["title"], ensure_ascii=False))
    if "annotations" in meta:
        out.append(";; MCP annotations: " + json.dumps(meta["annotations"], ensure_ascii=False))
    if "output_schema" in meta:
        w.warn(
            "PS524",
            "dropped the MCP outputSchema: a gptel/llm tool has no place for it (kept in the IR only)",
        )
    return [line.replace("\r", " ").replace("\n", " ") for line in out]


def _span(tool: Tool) -> tuple[Any, tuple, tuple] | None:
    meta = tool.get("metadata")
    src = meta.get("source") if isinstance(meta, dict) else None
    if not isinstance(src, dict):
        return None
    try:
        start = (int(src["line"]), int(src["column"]))
        end = (int(src["end_line"]), int(src["end_column"]))
    except (KeyError, TypeError, ValueError):
        return None
    return src.get("path"), start, end


def _nested(tools: list[Tool]) -> set[int]:
    """Indexes of tools read from inside another tool's form whose :function text is
    written back verbatim (a tool made in a sub-agent's function): that text already
    defines them, so writing them again would define them twice. One sort and a sweep
    with a stack of the enclosing forms."""
    order = []
    for i, t in enumerate(tools):
        sp = _span(t)
        if sp is not None:
            order.append((str(sp[0]), sp[1], (-sp[2][0], -sp[2][1]), i, sp[2]))
    order.sort()
    out: set[int] = set()
    stack: list[tuple[str, tuple, tuple, bool]] = []  # (path, start, end, a kept :function)
    for path, start, _, i, end in order:
        while stack and (
            stack[-1][0] != path
            or stack[-1][2] < end
            or (stack[-1][1], stack[-1][2]) == (start, end)
        ):
            stack.pop()
        if stack and stack[-1][3]:
            out.add(i)
        has_fn = isinstance((tools[i].get("metadata") or {}).get("function"), str)
        stack.append((path, start, end, bool(stack and stack[-1][3]) or has_fn))
    return out


def to_elisp(
    tools: list[Tool],
    dialect: str | None = "gptel",
    *,
    file_name: str | None = None,
    forms_only: bool = False,
) -> tuple[str, list[Diagnostic]]:
    """A whole ``.el`` file defining ``tools`` (gptel or llm), and diagnostics.

    ``dialect`` None writes each tool in its own ``metadata.dialect`` (default gptel).
    ``file_name`` (``tools.el`` by default) names the file in its first and last lines
    and in ``(provide 'NAME)``. ``forms_only`` gives only the tool forms (each with its
    ``;;`` comments), separated by blank lines: no header, Commentary, ``require``,
    ``provide`` or footer (what an editor inserts into a buffer).
    """
    if dialect is not None and dialect not in HEADS:
        raise ValueError(f"unknown dialect {dialect!r}")
    import os

    base = os.path.basename(file_name) if file_name else "tools.el"
    stem = base[:-3] if base.endswith(".el") else base
    stem = stem or "tools"
    from plistspec.elisp import printer as p

    diags: list[Diagnostic] = []
    dialects = [dialect or (t.get("metadata") or {}).get("dialect") or "gptel" for t in tools]
    dialects = [d if d in HEADS else "gptel" for d in dialects]
    libraries = sorted(set(dialects)) or [dialect or "gptel"]
    library = " and ".join(libraries)
    forms: list[str] = []
    stubs = 0
    inner = _nested(tools)
    for k, (tool, dia) in enumerate(zip(tools, dialects, strict=True)):
        if k in inner:
            continue
        w = Writer(dia, label(tool), diags)
        comments = _comments(tool, w)
        _run(write_form(w, tool, 0))
        text = "".join(w.out)
        if "implemented yet: write its :function" in text:
            stubs += 1
        forms.append("\n".join(comments + [text]))
    if forms_only:
        return ("\n\n".join(forms) + "\n" if forms else ""), diags
    head = [f";;; {stem}.el --- Tool definitions for {library}  -*- lexical-binding: t; -*-", ""]
    head += [
        ";;; Commentary:",
        "",
        f";; {len(forms)} tool{'s' if len(forms) != 1 else ''} written by plistspec.",
    ]
    if stubs:
        head += [
            ";; Each tool that came without an implementation has a stub :function that",
            ";; signals `user-error' when called: replace it with the code that runs the tool.",
        ]
    head += [
        f";; Loading this file loads {library} (`{HEADS[libraries[0]]}' is not autoloaded), so",
        f";; {'they' if len(libraries) > 1 else 'it'} must be installed; to load it lazily: "
        f'(with-eval-after-load \'{libraries[0]} (load "{stem}"))',
    ]
    head += ["", ";;; Code:", ""] + [f"(require '{lib})" for lib in libraries] + [""]
    body = "\n\n".join(forms)
    tail = ["", f"(provide '{p.print_symbol(stem)})", f";;; {stem}.el ends here", ""]
    text = "\n".join(head) + "\n" + (body + "\n" if body else "") + "\n".join(tail)
    if any(ord(c) > 127 for c in text):
        text = text.replace(
            "-*- lexical-binding: t; -*-", "-*- lexical-binding: t; coding: utf-8 -*-", 1
        )
    return text, diags
