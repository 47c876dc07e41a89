"""Descriptions from source: docments comments and docstrings (``python-schema.md`` §5).

Owns: reading ``# comments`` at the end of parameter lines (and of class-body field lines)
with ``tokenize`` + ``ast``; splitting a docstring into the tool description and per-parameter
texts (Google / NumPy / Sphinx via ``docstring_parser``, auto-detected, plus ``- name: text``
bullets). ``docstring_parser`` is imported only when a docstring has something that looks
like a parameter section, so plain docstrings cost nothing.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["param_comments", "class_comments", "split_docstring", "Docstring"]

_SECTION_HINT = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Exceptions?|Attributes|"
    r"Keyword Args|Keyword Arguments|Other Parameters|Examples?|Notes?|See Also|Warns?|Warnings)"
    r"\s*:?\s*$|^\s*[:@](param|type|returns?|rtype|raises?|arg|argument|key|keyword)\b",
    re.MULTILINE,
)
# Google headers docstring_parser does not know, which document parameters all the same
_KW_HEADER = re.compile(
    r"^([ \t]*)(?:Keyword Args|Keyword Arguments|Kwargs|Other Parameters|Other Args):[ \t]*$",
    re.MULTILINE,
)
_BULLET = re.compile(r"^\s*[-*]\s+`?(\w+)`?\s*(?:\([^)]*\))?\s*:\s*(.+)$", re.MULTILINE)


class Docstring:
    """A docstring's ``description`` (sections removed) and ``params`` (name → text)."""

    __slots__ = ("description", "params", "returns")

    def __init__(self, description: str | None, params: dict[str, str], returns: str | None):
        self.description = description
        self.params = params
        self.returns = returns


def _clean_paragraphs(text: str) -> str:
    text = text.strip("\n")
    lines = [ln.rstrip() for ln in text.split("\n")]
    out: list[str] = []
    for ln in lines:
        if not ln and out and not out[-1]:
            continue
        out.append(ln)
    return "\n".join(out).strip()


def split_docstring(doc: str | None, names: Any = None) -> Docstring:
    """Tool description and parameter texts from a raw ``__doc__``; ``- name: text`` bullets
    naming one of ``names`` (the parameters) document it and leave the description."""
    if not doc or not doc.strip():
        return Docstring(None, {}, None)
    import inspect

    clean = inspect.cleandoc(doc)
    if not _SECTION_HINT.search(clean) and not (names and _BULLET.search(clean)):
        return Docstring(_clean_paragraphs(clean) or None, {}, None)
    params: dict[str, str] = {}
    returns = None
    description = clean
    if _SECTION_HINT.search(clean):
        try:
            import docstring_parser

            parsed = docstring_parser.parse(_KW_HEADER.sub(r"\1Params:", clean))
        except Exception:
            parsed = None
        if parsed is not None:
            for p in parsed.params:
                if p.arg_name and p.description:
                    name = p.arg_name.lstrip("*").split(" ")[0]
                    params.setdefault(name, _join_lines(p.description))
            if parsed.returns is not None and parsed.returns.description:
                returns = _join_lines(parsed.returns.description)
            description = (parsed.short_description or "").strip()
            if parsed.long_description:
                sep = "\n\n" if parsed.blank_after_short_description else "\n"
                description = (
                    description + sep if description else ""
                ) + parsed.long_description.strip()
    if names is not None and _BULLET.search(description):
        kept = []
        for line in description.split("\n"):
            m = _BULLET.match(line)
            if m and m.group(1) in names:
                params.setdefault(m.group(1), m.group(2).strip())
                continue
            kept.append(line)
        while kept and kept[-1].strip().rstrip(":") in (
            "Args",
            "Arguments",
            "Parameters",
            "Params",
            "",
        ):
            kept.pop()
        description = "\n".join(kept)
    return Docstring(_clean_paragraphs(description) or None, params, returns)


def _join_lines(text: str) -> str:
    """A parameter text: its wrapped lines joined by spaces, paragraphs kept."""
    paras = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(ln.strip() for ln in p.split("\n") if ln.strip()) for p in paras)


def _source(obj: Any) -> tuple[str, int] | None:
    import inspect

    try:
        obj = inspect.unwrap(obj)
        lines, start = inspect.getsourcelines(obj)
    except (OSError, TypeError, IndentationError, SyntaxError):
        return None
    return "".join(lines), start


def _comments_by_line(src: str) -> dict[int, tuple[str, bool]]:
    """1-based line → (comment text, whether the line holds nothing else)."""
    import io
    import tokenize

    out: dict[int, tuple[str, bool]] = {}
    code_lines: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = (tok.string[1:].strip(), False)
            elif tok.type not in (
                tokenize.NL,
                tokenize.NEWLINE,
                tokenize.INDENT,
                tokenize.DEDENT,
                tokenize.ENDMARKER,
            ):
                for ln in range(tok.start[0], tok.end[0] + 1):
                    code_lines.add(ln)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return {ln: (text, ln not in code_lines) for ln, (text, _) in out.items()}


def _parse(src: str) -> Any:
    import ast
    import textwrap

    try:
        return ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return None


def _assign(
    spans: list[tuple[str, int, int]], comments: dict[int, tuple[str, bool]], limit: int
) -> dict[str, str]:
    """Give each ``(name, first_line, last_line)`` the comments that belong to it.

    An end-of-line comment on the item's last line is its description; comment-only lines
    right below continue it; comment-only lines just above an item without one describe it.
    """
    out: dict[str, str] = {}
    used: set[int] = set()
    for name, _first, last in spans:
        c = comments.get(last)
        if c is None or c[1]:
            continue
        parts = [c[0]]
        used.add(last)
        ln = last + 1
        while ln < limit and ln in comments and comments[ln][1]:
            parts.append(comments[ln][0])
            used.add(ln)
            ln += 1
        out[name] = " ".join(p for p in parts if p)
    for name, first, _last in spans:
        if name in out:
            continue
        above = []
        ln = first - 1
        while ln in comments and comments[ln][1] and ln not in used:
            above.append(comments[ln][0])
            ln -= 1
        if above:
            out[name] = " ".join(p for p in reversed(above) if p)
    return {k: v for k, v in out.items() if v}


def param_comments(fn: Any) -> dict[str, str]:
    """Docments: parameter name → the comment at the end of its line in the signature."""
    got = _source(fn)
    if got is None:
        return {}
    src, _start = got
    if "#" not in src:
        return {}
    tree = _parse(src)
    if tree is None or not tree.body:
        return {}
    import ast

    node = tree.body[0]
    while isinstance(node, ast.ClassDef):  # a class target: its __init__ was asked for
        return {}
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    a = node.args
    body_line = node.body[0].lineno if node.body else 10**9
    spans: list[tuple[str, int, int]] = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    items: list[tuple[Any, Any]] = list(zip(positional, defaults, strict=False))
    if a.vararg:
        items.append((a.vararg, None))
    items += list(zip(a.kwonlyargs, a.kw_defaults, strict=False))
    if a.kwarg:
        items.append((a.kwarg, None))
    for arg, default in items:
        last = max(arg.end_lineno or arg.lineno, (default.end_lineno or 0) if default else 0)
        spans.append((arg.arg, arg.lineno, last))
    # only the header: comments from the def line up to the first body statement
    ret_line = node.returns.end_lineno if node.returns is not None else None
    if ret_line is None and spans and all(last == node.lineno for _n, _f, last in spans):
        # a one-line signature `def f(a):  # ...`: the trailing comment is about the function
        code = src.split("\n")[node.lineno - 1].split("#", 1)[0].rstrip()
        if code.endswith(":"):
            ret_line = node.lineno
    header_end = body_line
    comments = {
        ln: c
        for ln, c in _comments_by_line(src).items()
        if node.lineno <= ln < header_end and ln != ret_line
    }
    return _assign(spans, comments, header_end)


def class_comments(cls: Any) -> dict[str, str]:
    """Docments for classes: field name → the comment at the end of its line in the body."""
    d = getattr(cls, "__dict__", {})
    cached = d.get("__plistspec_comments__")
    if isinstance(cached, dict):
        return cached
    got = _source(cls)
    out: dict[str, str] = {}
    if got is not None and "#" in got[0]:
        import ast

        tree = _parse(got[0])
        if tree is not None and tree.body and isinstance(tree.body[0], ast.ClassDef):
            spans = []
            for stmt in tree.body[0].body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    spans.append((stmt.target.id, stmt.lineno, stmt.end_lineno or stmt.lineno))
                elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    t = stmt.targets[0]
                    if isinstance(t, ast.Name):  # Enum members
                        spans.append((t.id, stmt.lineno, stmt.end_lineno or stmt.lineno))
            out = _assign(spans, _comments_by_line(got[0]), 10**9)
    return out
