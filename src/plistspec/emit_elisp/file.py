"""The file frame around tool forms: a whole ``.el`` file of tools.

Owns: :func:`to_elisp`: the header line, Commentary, ``require``, the forms (with the
``;;`` comments carrying what has no slot), and the footer. Every text taken from input
(names, titles, annotations) goes into a comment through
:func:`plistspec.elisp.comment.comment_text`.
"""

from __future__ import annotations

import re
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool
from plistspec.core.jsontext import brief
from plistspec.emit_elisp.forms import HEADS, label, write_form
from plistspec.emit_elisp.layout import Writer

__all__ = ["to_elisp", "feature_name"]


def _comments(tool: Tool, w: Writer) -> list[str]:
    meta = tool.get("metadata") or {}
    out = []
    if "title" in meta:
        out.append(";; MCP title: " + brief(meta["title"], 2000, ascii=False))
    if "annotations" in meta:
        out.append(";; MCP annotations: " + brief(meta["annotations"], 2000, ascii=False))
    if "output_schema" in meta:
        w.warn(
            "PS524",
            "dropped the MCP outputSchema: a gptel/llm tool has no place for it (kept in the IR only)",
        )
    from plistspec.elisp.comment import comment_text

    return [";; " + comment_text(line[3:]) for line in out]


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


_LOCAL_VARS = re.compile(r"(local variables):", re.IGNORECASE)


def _no_local_variables(text: str) -> str:
    """``text`` without the words that start a file-local variables block.

    Emacs looks for ``Local Variables:`` near the end of a file and takes the text before
    and after it on that line as the prefix and suffix of the following lines: a
    description holding it, then ``eval: ...`` in the next line's description, would set
    variables (or run code) when the file is visited. Comments are defused by
    :func:`~plistspec.elisp.comment.comment_text`; here the ``:`` inside strings becomes
    ``\\u003A``, which Emacs reads as the same ``:``."""
    return _LOCAL_VARS.sub(lambda m: m.group(1) + "\\u003A", text)


def _setq_lines(names: list[str], ct: Any) -> list[str]:
    """The Commentary's ``(setq gptel-tools ...)`` snippet, every tool named, wrapped."""
    first = ";;   (setq gptel-tools (mapcar #'gptel-get-tool '("
    lines: list[str] = []
    cur = ""
    for n in names:
        if cur and len(cur) + len(n) > 60:
            lines.append(cur)
            cur = ""
        cur = f"{cur} {n}" if cur else n
    lines.append(cur + ")))")
    out = [first + ct(lines[0])]
    return out + [";;" + " " * (len(first) - 2) + ct(ln) for ln in lines[1:]]


def _names(
    file_name: str | None, feature: str | None, variable: str | None
) -> tuple[str, str, str]:
    """``(stem, feature, variable)``: the file's base name without ``.el`` (for its
    header and footer lines), the feature it provides, and the llm tools variable."""
    import os

    base = os.path.basename(file_name) if file_name else ""
    stem = base[:-3] if base.endswith(".el") else base
    feature = feature or stem or "tools"
    stem = stem or feature
    if not variable:
        variable = feature if feature.endswith("-tools") else feature + "-tools"
    return stem, feature, variable


def feature_name(file_name: str | None, feature: str | None) -> str:
    """The feature a file named ``file_name`` provides (``feature``, else the file name
    without ``.el``, else ``tools``): what :func:`to_elisp` writes in ``(provide ...)``."""
    return _names(file_name, feature, None)[1]


def feature_problem(file_name: str | None, feature: str | None) -> str | None:
    """Why the feature :func:`feature_name` gives cannot be written as a visible symbol
    (a file name that is not UTF-8, or holds a control, bidirectional or space character),
    or None: the PS526 message :func:`to_elisp` reports."""
    return _unwritable(feature_name(file_name, feature), None, feature, file_name)


def _depth_warning(tool: Tool, text: str, w: Writer) -> None:
    """PS204 (as a warning: the file is still written) when the written form nests deeper
    than gptel/llm are known to convert (their recursive code fails past about
    :data:`plistspec.replay.MAX_DEPTH` levels): exactly what ``check`` reports on it. The
    form is read back only when its parameters come near that depth."""
    from plistspec.replay import MAX_DEPTH, too_deep

    # the form nests about as deep as the JSON: far from the limit, nothing to read back
    near = MAX_DEPTH - 8
    todo = [(tool.get("parameters"), 1)]
    while todo:
        v, d = todo.pop()
        if d >= near:
            break
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        todo.extend((x, d + 1) for x in items if isinstance(x, (dict, list)))
    else:
        return
    from plistspec.core.diagnostics import ReadError
    from plistspec.elisp.reader import read_all
    from plistspec.extract.find import call_form

    try:
        (datum,) = read_all(text)
    except (ReadError, ValueError):
        return
    form = call_form(datum, text)
    args = form.slot(":args") if form is not None else None
    # the value the library gets (`(list '(...))' evaluated), as lower measures it
    if args is not None and args.value is not None and too_deep(args.value) is not None:
        w.warn(
            "PS204",
            f"its parameters nest more than {MAX_DEPTH} levels deep: gptel and llm "
            "convert them recursively and may fail there (`plistspec check` reports "
            "the written form)",
        )


def _unwritable(
    feature: str, variable: str | None, given: str | None, file_name: str | None
) -> str | None:
    """Why the feature (or a given variable) name cannot be written as a visible symbol
    (a control, bidirectional or space character, a raw byte of a file name that is not
    UTF-8), or None."""
    from plistspec.core.lines import one_line

    def ok(name: str) -> bool:
        return name.isprintable() and not any(c.isspace() for c in name)

    if not ok(feature):
        if given:
            return f"the feature `{one_line(feature)}' cannot be written as a visible symbol"
        import os

        base = one_line(os.path.basename(file_name or ""))
        why = (
            "is not valid UTF-8"
            if any(0xDC80 <= ord(c) <= 0xDCFF for c in feature)
            else "holds a control, bidirectional or space character"
        )
        return (
            f"the file name `{base}' {why}, so it gives no feature name Emacs Lisp can "
            "write (the file provides the feature its name says): name the file "
            "otherwise, or give --feature NAME"
        )
    if variable is not None and not ok(variable):
        return f"the variable `{one_line(variable)}' cannot be written as a visible symbol"
    return None


def to_elisp(
    tools: list[Tool],
    dialect: str | None = "gptel",
    *,
    file_name: str | None = None,
    forms_only: bool = False,
    feature: str | None = None,
    variable: str | None = None,
    category: str | None = None,
) -> tuple[str, list[Diagnostic]]:
    """A whole ``.el`` file defining ``tools`` (gptel or llm), and diagnostics.

    ``dialect`` None writes each tool in its own ``metadata.dialect`` (default gptel).
    ``file_name`` names the file in its first and last lines; the file ``(provide 'FEATURE)``
    s ``feature``, by default the file name without ``.el`` (``tools`` without a file name),
    so ``(require 'FEATURE)`` loads it. llm tools are not registered anywhere when they are
    made, so when any tool is an llm tool (or ``variable`` is given) the forms are the
    elements of ``(defvar VARIABLE (list ...) "...")``; ``variable`` defaults to
    FEATURE-tools (FEATURE itself when it already ends in ``-tools``; a global variable
    needs a prefix, or the byte compiler warns). ``forms_only``
    gives only the tool forms (each with its ``;;`` comments), separated by blank lines:
    no header, Commentary, ``require``, ``defvar``, ``provide`` or footer (what an editor
    inserts into a buffer). ``category`` is gptel's ``:category`` of every gptel tool
    (replacing a tool's own, with a PS531 info).
    """
    if dialect is not None and dialect not in HEADS:
        raise ValueError(f"unknown dialect {dialect!r}")
    from plistspec.elisp import printer as p
    from plistspec.elisp.comment import comment_text as ct

    given = feature
    stem, feature, var = _names(file_name, feature, variable)
    diags: list[Diagnostic] = []
    if not forms_only:
        bad = _unwritable(feature, var if variable else None, given, file_name)
        if bad is not None:
            return "", [Diagnostic("PS526", "error", bad)]  # type: ignore[arg-type]
    dialects = [dialect or (t.get("metadata") or {}).get("dialect") or "gptel" for t in tools]
    dialects = [d if d in HEADS else "gptel" for d in dialects]
    libraries = sorted(set(dialects)) or [dialect or "gptel"]
    library = " and ".join(libraries)
    wrap = not forms_only and (bool(variable) or "llm" in dialects)
    indent = 3 if wrap else 0
    forms: list[str] = []
    names: list[str] = []
    stubs = 0
    inner = _nested(tools)
    for k, (tool, dia) in enumerate(zip(tools, dialects, strict=True)):
        if k in inner:
            continue
        w = Writer(dia, label(tool), diags)
        w.category = category
        comments = [" " * indent + c for c in _comments(tool, w)]
        write_form(w, tool, indent)
        text = " " * indent + "".join(w.out)
        _depth_warning(tool, text, w)
        if "implemented yet: write its :function" in text:
            stubs += 1
        if isinstance(tool.get("name"), str):
            names.append(tool["name"])
        forms.append("\n".join(comments + [text]))
    if forms_only:
        return _no_local_variables("\n\n".join(forms) + "\n" if forms else ""), diags
    n = len(forms)
    head = [
        f";;; {ct(stem)}.el --- Tool definitions for {library}  -*- lexical-binding: t; -*-",
        "",
        ";;; Commentary:",
        "",
        f";; {n} tool{'s' if n != 1 else ''} written by plistspec.",
    ]
    if stubs:
        head += [
            ";; Each tool that came without an implementation has a stub :function that",
            ";; signals `user-error' when called: replace it with the code that runs the tool.",
        ]
    sym = p.print_symbol(feature)
    head += [
        f";; Loading this file loads {library} (`{HEADS[libraries[0]]}' is not autoloaded), so",
        f";; {'they' if len(libraries) > 1 else 'it'} must be installed.  Load it with",
        ";; " + ct(f"(require '{sym})") + " (the file on `load-path').",
    ]
    if wrap:
        head += [
            ";; " + ct(f"The tools are the list in `{var}'; with llm, pass it as the :tools of"),
            ";; " + ct(f"a prompt: (llm-make-chat-prompt TEXT :tools {p.print_symbol(var)})."),
        ]
    if "gptel" in dialects:
        head += [
            ";; `gptel-make-tool' registers each gptel tool with gptel.  To let the model use",
            ";; them, turn them on in gptel's transient menu (M-x gptel-menu, Tools), or",
            ";; for every request:",
        ] + _setq_lines([p.print_string(x) for x in names], ct)
    head += ["", ";;; Code:", ""] + [f"(require '{lib})" for lib in libraries] + [""]
    if wrap:
        doc = p.print_string(
            f"The {n} tool{'s' if n != 1 else ''} this file defines (written by plistspec)."
        )
        lines = [f"(defvar {p.print_symbol(var)}"]
        if forms:
            lines.append("  (list")
            body = "\n".join(lines) + "\n" + "\n\n".join(forms) + ")\n  " + doc + ")"
        else:
            body = "\n".join(lines) + "\n  nil\n  " + doc + ")"
    else:
        body = "\n\n".join(forms)
    tail = ["", f"(provide '{sym})", f";;; {ct(stem)}.el ends here", ""]
    text = "\n".join(head) + "\n" + (body + "\n" if body else "") + "\n".join(tail)
    text = _no_local_variables(text)
    if any(ord(c) > 127 for c in text):
        text = text.replace(
            "-*- lexical-binding: t; -*-", "-*- lexical-binding: t; coding: utf-8 -*-", 1
        )
    return text, diags
