"""IR → Emacs Lisp text: ``gptel-make-tool`` / ``llm-make-tool`` forms in the canonical layout.

Owns: the canonical layout of a tool form and of a whole ``.el`` file of tools
(:func:`to_elisp`, :func:`tool_form_text`, :func:`tool_form`). All escaping is done by
:mod:`plistspec.elisp.printer`; this module only decides what to write and where.

Layout (``emacs-conventions.md`` §3): ``(gptel-make-tool`` then one ``:key value`` per
line indented one space, in the order ``:name``, ``:function``, ``:description``,
``:args``, then the other slots as the IR lists them. gptel args are written
``:args (list '( :name "a" ...) ...)``, llm args ``:args '(( :name "a" ...) ...)``;
the space after ``(`` marks a data list and every key of a multi-line plist is aligned
under the first. A top-level arg plist has one key per line; a nested plist or vector is
written on one line when it fits in :data:`FILL` columns and (for plists) holds no
non-empty plist, otherwise one key (element) per line. Beyond :data:`MAX_INDENT` columns
everything is written on one line, so the output stays linear in the input.

JSON → Elisp values (gptel): string, number, ``true`` → ``t``, ``false`` →
``:json-false``, ``null`` → ``:null``, array → vector, object → plist with keyword keys
(the key ``""`` is the symbol ``##``; ``":x"`` is ``::x``, gptel strips one colon), and
``{}`` → ``nil``: gptel serializes ``nil`` as ``{}`` everywhere, so this is the value that
round-trips exactly (``[]`` is ``[]``). ``:type`` values are bare symbols when they are
plain names, otherwise strings (gptel sends both the same way). A property is
``:optional t`` exactly when its name is not in ``required`` (matched by name).

llm (``--dialect llm``): only ``type description enum items properties`` are written at
the arg level (llm drops the rest; one warning per dropped key), ``:type`` is a symbol
(a type array keeps its first non-null member, with a warning). Inside ``:items`` and
``:properties`` llm converts values itself: ``false`` → ``:false``, ``null`` → ``nil``;
inside vectors values reach ``json-serialize`` unconverted, so ``null`` → ``:null`` and
``:type`` is a string there. ``{}`` cannot be written where llm converts (its ``nil``
means ``null``): reported.

``:function``: when the IR carries the source (``metadata.slots``, else
``metadata.function``) it is written back verbatim, continuation lines re-indented by
the change of column (never inside a string). Otherwise (tools from JSON) a stub that
loads and byte-compiles cleanly and, when called, signals ``user-error`` "Tool NAME is
not implemented yet: write its :function" — a lambda over the tool's arguments (named
after the properties when they are plain symbols, else ``argN``) so the user sees the
calling convention. MCP ``title`` and ``annotations`` are written as ``;; MCP title:``
/ ``;; MCP annotations:`` comment lines (JSON) above the form; an explicit
``destructiveHint: true`` (without ``readOnlyHint: true``) also gives ``:confirm t`` in
gptel. MCP ``outputSchema`` has no place: a warning.

File frame (``emacs-conventions.md`` §3.1): ``;;; NAME.el --- SUMMARY  -*- lexical-binding:
t; -*-`` (plus ``coding: utf-8`` when the text is not ASCII), a Commentary, ``(require
'gptel)`` / ``(require 'llm)``, the forms, ``(provide 'NAME)`` and ``;;; NAME.el ends
here``. The ``require`` is deliberate: neither ``gptel-make-tool`` nor ``llm-make-tool``
is autoloaded, so without it loading the file before the library signals
``void-function``, and the byte compiler warns about an unknown function; with it, a
machine without the library gets the plain "Cannot open load file: gptel". The
Commentary says how to load the file lazily (``with-eval-after-load``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any

from plistspec.diagnostics import Diagnostic
from plistspec.ir import Tool
from plistspec.trampoline import run as _run

__all__ = ["to_elisp", "tool_form_text", "tool_form", "reindent", "FILL", "MAX_INDENT"]

FILL = 100
MAX_INDENT = 120

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_LLM_KEEPS = ("type", "description", "enum", "items", "properties")
_FRONT_SLOTS = (":function",)
_HEADS = {"gptel": "gptel-make-tool", "llm": "llm-make-tool"}


def _printer():
    from plistspec.elisp import printer

    return printer


def _visual_width(ws: str) -> int:
    col = 0
    for c in ws:
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
    return col


def reindent(text: str, old_col: int | None, new_col: int) -> str:
    """``text`` (a slot value as written at ``old_col``) moved to ``new_col``.

    Continuation lines shift by the column delta; lines that begin inside a string
    (or any other multi-line token) are left exactly as they are.
    """
    if old_col is None or old_col == new_col or "\n" not in text:
        return text
    delta = new_col - old_col
    protected = _token_spans(text)
    if protected is None:
        return text
    lines = text.split("\n")
    out = [lines[0]]
    pos = len(lines[0]) + 1
    pi = 0
    for line in lines[1:]:
        while pi < len(protected) and protected[pi][1] <= pos:
            pi += 1
        inside = pi < len(protected) and protected[pi][0] < pos < protected[pi][1]
        if inside or not line.strip():
            out.append(line)
        else:
            body = line.lstrip(" \t")
            width = _visual_width(line[: len(line) - len(body)])
            out.append(" " * max(0, width + delta) + body)
        pos += len(line) + 1
    return "\n".join(out)


def _token_spans(text: str) -> list[tuple[int, int]] | None:
    """Spans of the atoms (strings, symbols...) of ``text`` that cross a newline."""
    try:
        from plistspec.elisp.reader import read_all

        datums = read_all(text)
    except Exception:  # noqa: BLE001 - unreadable slot text is kept verbatim
        return None
    from plistspec.elisp.datum import List, Vector

    spans = []
    todo = list(datums)
    while todo:
        d = todo.pop()
        if isinstance(d, (List, Vector)):
            todo.extend(d.items)
            if isinstance(d, List) and d.tail is not None:
                todo.append(d.tail)
        elif d.start >= 0 and "\n" in text[d.start : d.end]:
            spans.append((d.start, d.end))
    spans.sort()
    return spans


class _Writer:
    """Appends text pieces, tracking the current column."""

    def __init__(self, dialect: str, label: str, diags: list[Diagnostic], plan: Any = None) -> None:
        self.dialect = dialect
        self.label = label
        self.diags = diags
        self.out: list[str] = []
        self.col = 0
        self.p = _printer()
        self.warned_empty = False
        # comments (fmt): a CommentPlan, the trailing comments waiting for the end of
        # the line, and which anchors were written
        self.plan = plan if plan else None
        self.pending: list[str] = []
        self.written: set[tuple[str, int]] = set()

    # -- low level ---------------------------------------------------------------------
    def put(self, s: str) -> None:
        self.out.append(s)
        nl = s.rfind("\n")
        self.col = self.col + len(s) if nl < 0 else len(s) - nl - 1

    def newline(self, col: int) -> None:
        if self.pending:
            self.put(" " + " ".join(self.pending))
            self.pending = []
        self.put("\n" + " " * col)

    # -- comments (only with a plan) ---------------------------------------------------
    def child(self, nid: int | None, key: tuple) -> int | None:
        return None if self.plan is None else self.plan.child(nid, key)

    def hot(self, nid: int | None) -> bool:
        return nid is not None and nid in self.plan.hot

    def lead(self, nid: int | None, col: int) -> None:
        """Leading comments of ``nid``, each on its own line at ``col``."""
        if nid is None or nid not in self.plan.leading:
            return
        self.written.add(("leading", nid))
        for line in self.plan.leading[nid]:
            self.put(line)
            self.newline(col)

    def has_lead(self, nid: int | None) -> bool:
        return nid is not None and nid in self.plan.leading

    def trail(self, nid: int | None, kind: str = "trailing") -> None:
        """The trailing (or open) comment of ``nid``: written at the end of this line."""
        if nid is None:
            return
        table = self.plan.trailing if kind == "trailing" else self.plan.open
        if nid in table:
            self.written.add((kind, nid))
            self.pending.append(table[nid])

    def end(self, nid: int | None, col: int) -> None:
        """End comments of ``nid`` on their own lines; the closing paren goes below."""
        if nid is None or nid not in self.plan.end:
            return
        self.written.add(("end", nid))
        for line in self.plan.end[nid]:
            self.newline(col)
            self.put(line)
        self.newline(col)

    def warn(self, code: str, message: str, severity: str = "warning") -> None:
        self.diags.append(Diagnostic(code, severity, f"tool {self.label}: {message}"))  # type: ignore[arg-type]

    def key(self, k: str) -> str:
        if k == "":
            return "##"
        return self.p.print_symbol(":" + k)

    # -- atoms -------------------------------------------------------------------------
    def atom(self, v: Any, ctx: str) -> str | None:
        """The text of a non-container value (and of ``{}`` / ``[]``), else None.

        ``ctx``: ``G`` gptel; ``C`` a value llm converts (inside ``:items``/``:properties``);
        ``R`` a value that reaches ``json-serialize`` as it is (llm vectors, arg level).
        """
        if v is True:
            return "t"
        if v is False:
            return ":json-false" if ctx == "G" else ":false"
        if v is None:
            return "nil" if ctx == "C" else ":null"
        if isinstance(v, str):
            return self.p.print_string(v)
        if isinstance(v, (int, float)):
            return self.p.print_number(v)
        if isinstance(v, dict):
            if v:
                return None
            if ctx == "C" and not self.warned_empty:
                self.warned_empty = True
                self.warn(
                    "PS522",
                    "an empty object {} inside :items/:properties is sent as null by llm (it has no way to write {} there)",
                )
            return "nil"
        if isinstance(v, list):
            return None if v else "[]"
        raise TypeError(f"not a JSON value: {type(v).__name__}")

    def type_atom(self, v: Any, ctx: str, keyword_led: bool) -> str | None:
        if (
            ctx != "R"
            and keyword_led
            and isinstance(v, str)
            and _PLAIN.match(v)
            and v not in ("nil", "t")
        ):
            return v
        return self.atom(v, ctx)

    @staticmethod
    def child_ctx(ctx: str, v: Any) -> str:
        if ctx == "G":
            return "G"
        if ctx == "C" and not isinstance(v, list):
            return "C"
        return "R"

    # -- flat rendering ------------------------------------------------------------------
    def flat(self, v: Any, ctx: str, limit: int | None) -> str | None:
        """``v`` on one line, or None when longer than ``limit`` characters."""
        pieces: list[str] = []
        n = 0
        stack: list[tuple] = [("v", v, ctx, False)]
        while stack:
            kind, a, c, typ = stack.pop()
            if kind == "s":
                s = a
            else:
                if limit is not None and isinstance(a, str) and len(a) + 2 > limit - n:
                    return None
                s = self.type_atom(a, c, True) if typ else self.atom(a, c)
                if s is None:
                    if isinstance(a, list):
                        cc = self.child_ctx(c, a)
                        stack.append(("s", "]", None, False))
                        for i in range(len(a) - 1, -1, -1):
                            stack.append(("v", a[i], cc, False))
                            if i:
                                stack.append(("s", " ", None, False))
                        s = "["
                    else:
                        items = list(a.items())
                        kl = items[0][0] != ""
                        stack.append(("s", ")", None, False))
                        for i in range(len(items) - 1, -1, -1):
                            k, sub = items[i]
                            stack.append(("v", sub, self.child_ctx(c, sub), k == "type" and kl))
                            stack.append(("s", self.key(k) + " ", None, False))
                            if i:
                                stack.append(("s", " ", None, False))
                        s = "( "
            pieces.append(s)
            n += len(s)
            if limit is not None and n > limit:
                return None
        return "".join(pieces)

    # -- multi-line layout ---------------------------------------------------------------
    def value(self, v: Any, ctx: str, typ: bool = False, nid: int | None = None) -> Generator:
        """Write ``v`` at the current column (a generator for the trampoline)."""
        s = self.type_atom(v, ctx, True) if typ else self.atom(v, ctx)
        if s is not None:
            self.put(s)
            return
        if self.col > MAX_INDENT:
            self.put(self.flat(v, ctx, None) or "")
            return
        nested_plist = isinstance(v, dict) and any(isinstance(x, dict) and x for x in v.values())
        if not nested_plist and not self.hot(nid):
            f = self.flat(v, ctx, FILL - self.col)
            if f is not None:
                self.put(f)
                return
        start = self.col
        if isinstance(v, list):
            cc = self.child_ctx(ctx, v)
            self.put("[")
            for i, e in enumerate(v):
                cid = self.child(nid, ("i", i))
                if i:
                    self.newline(start + 1)
                    self.lead(cid, start + 1)
                yield self.value(e, cc, False, cid)
                self.trail(cid)
            self.end(nid, start + 1)
            self.put("]")
            return
        kl = not v or next(iter(v)) != ""
        entries = [
            (k, None, sub, self.child_ctx(ctx, sub), k == "type" and kl) for k, sub in v.items()
        ]
        yield self.plist(entries, start, nid)

    def plist(self, entries: list[tuple], start: int, nid: int | None = None) -> Generator:
        """A multi-line plist ``( :k v\n  :k v)`` opened at column ``start``.

        ``entries``: ``(id key, text, value, ctx, typ)``; with ``text`` None the entry is
        ``:key value`` written from the IR key ``id key``, otherwise ``text`` is the whole
        pre-rendered entry (an arg's ``:name "x"``) and ``value`` is ignored.
        """
        self.put("( ")
        for i, (k, text, sub, ctx, typ) in enumerate(entries):
            cid = self.child(nid, ("k", k))
            if i:
                self.newline(start + 2)
                self.lead(cid, start + 2)
            if text is not None:
                self.put(text)
            else:
                self.put(self.key(k) + " ")
                yield self.value(sub, ctx, typ, cid)
            self.trail(cid)
        self.end(nid, start + 2)
        self.put(")")


# --------------------------------------------------------------------------------------
# Tool forms


def _label(tool: Tool) -> str:
    name = tool.get("name")
    return repr(name) if isinstance(name, str) else json.dumps(name)


def _eval_value(w: _Writer, v: Any) -> Generator:
    """A slot value in evaluated position (``:name``, ``:description``)."""
    if isinstance(v, dict) and v:
        w.put("'")
    yield w.value(v, "G")


def _lambda_args(props: list[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for i, name in enumerate(props, 1):
        sym = name if _PLAIN.match(name) and name not in ("nil", "t", "callback") else f"arg{i}"
        base, n = sym, 1
        while sym in seen:
            n += 1
            sym = f"{base}-{n}"
        seen.add(sym)
        out.append(sym)
    return out


def _stub(w: _Writer, tool: Tool, props: list[str], is_async: bool) -> str:
    args = _lambda_args(props)
    params = (["callback"] if is_async else []) + args
    body = w.col + 2
    name = tool.get("name")
    name_text = w.p.print_string(name) if isinstance(name, str) else '"(unnamed)"'
    text = f"(lambda ({' '.join(params)})"
    if params:
        text += "\n" + " " * body + f"(ignore {' '.join(params)})"
    text += (
        "\n"
        + " " * body
        + '(user-error "Tool %s is not implemented yet: write its :function" '
        + name_text
        + "))"
    )
    return text


def _slot_literal(w: _Writer, v: Any) -> str:
    if v is True:
        return "t"
    if v is None or v is False or v == {}:
        return "nil"
    if isinstance(v, (dict, list)) and v:
        return ("'" if isinstance(v, dict) else "") + (w.flat(v, "G", None) or "")
    return w.atom(v, "G") or "nil"


def _slots(w: _Writer, tool: Tool, props: list[str]) -> list[tuple[str, str, int | None]]:
    """The non-schema slots as ``(key, text, source column)``."""
    meta = tool.get("metadata") or {}
    slots = meta.get("slots")
    if isinstance(slots, list):
        out = [
            (s["key"], s["text"], s.get("column"))
            for s in slots
            if isinstance(s, dict) and "key" in s
        ]
        if meta.get("function") and not any(k == ":function" for k, _, _ in out):
            out.insert(0, (":function", meta["function"], None))
        return out
    out = []
    if meta.get("function"):
        out.append((":function", meta["function"], None))
    else:
        out.append((":function", "", -1))  # the stub, made at its column
    if meta.get("async"):
        out.append((":async", "t", None))
    if w.dialect == "gptel":
        for key in ("category", "confirm", "include"):
            if key in meta:
                out.append((":" + key, _slot_literal(w, meta[key]), None))
        ann = meta.get("annotations")
        if (
            "confirm" not in meta
            and isinstance(ann, dict)
            and ann.get("destructiveHint") is True
            and ann.get("readOnlyHint") is not True
        ):
            out.append((":confirm", "t", None))
    return out


def _params(w: _Writer, tool: Tool) -> tuple[dict, list[str], set[str]]:
    params = tool.get("parameters") or {}
    if not isinstance(params, dict):
        w.warn("PS521", "the parameters are not an object; written as a tool without arguments")
        return {}, [], set()
    props = params.get("properties") or {}
    if not isinstance(props, dict):
        w.warn(
            "PS521", "parameters.properties is not an object; written as a tool without arguments"
        )
        props = {}
    extra = [k for k in params if k not in ("type", "properties", "required")]
    if extra:
        w.warn(
            "PS521",
            f"dropped root {', '.join(extra)} of the parameter schema: a gptel/llm spec has no place for it",
        )
    req = params.get("required") or []
    required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
    if "" in props:
        w.warn("PS521", 'property "" cannot be written: gptel and llm send an empty :name as ":"')
    missing = [r for r in required if r not in props]
    if missing and (tool.get("metadata") or {}).get("args") != "vector":
        w.warn(
            "PS521",
            f"required names that are not properties were dropped: {', '.join(sorted(missing))}",
        )
    return props, list(props), required


def _gptel_arg(w: _Writer, name: str, schema: Any, optional: bool, aid: int | None) -> Generator:
    if not isinstance(schema, dict):
        w.warn(
            "PS523",
            f"property {name!r}: schema {json.dumps(schema)} is not an object; written as {{}}",
        )
        schema = {}
    entries: list[tuple] = [(":name", f":name {w.p.print_string(name)}", None, None, False)]
    items = [(k, None, sub, "G", k == "type") for k, sub in schema.items()]
    if "optional" in schema:
        # gptel reads the first :optional as the flag and sends a second one as a key.
        entries.append(
            (":optional", ":optional " + ("t" if optional else "nil"), None, None, False)
        )
        entries += items
    else:
        entries += items
        if optional:
            entries.append((":optional", ":optional t", None, None, False))
    w.put("'")
    yield w.plist(entries, w.col, aid)


def _llm_arg(w: _Writer, name: str, schema: Any, optional: bool, aid: int | None) -> Generator:
    if not isinstance(schema, dict):
        w.warn(
            "PS523",
            f"property {name!r}: schema {json.dumps(schema)} is not an object; written as {{}}",
        )
        schema = {}
    for k in schema:
        if k not in _LLM_KEEPS:
            why = (
                "llm cannot express it"
                if k in ("anyOf", "oneOf", "allOf")
                else "llm drops it at the arg level"
            )
            w.warn("PS520", f"property {name!r}: dropped :{k} ({why})")
    t = schema.get("type")
    entries: list[tuple] = [(":name", ":name " + w.p.print_string(name), None, None, False)]
    if isinstance(t, list):
        members = [x for x in t if x != "null"]
        w.warn(
            "PS520",
            f"property {name!r}: llm cannot express the type array {json.dumps(t)}; written as its first non-null member",
        )
        t = members[0] if members else None
    if t is None:
        w.warn("PS520", f'property {name!r}: no :type; llm sends "type": "nil"')
    elif not isinstance(t, str):
        w.warn(
            "PS520", f"property {name!r}: llm needs a symbol :type, not {json.dumps(t)}; dropped"
        )
        t = None
    if t is not None:
        entries.append(("type", ":type " + w.p.print_symbol(t), None, None, False))
    for k in _LLM_KEEPS[1:]:
        if k not in schema:
            continue
        v = schema[k]
        if isinstance(v, dict) and not v:
            w.warn("PS520", f"property {name!r}: llm drops :{k} when it is {{}} (nil)")
            continue
        ctx = "C" if k in ("items", "properties") and isinstance(v, dict) else "R"
        entries.append((k, None, v, ctx, False))
    if optional:
        entries.append((":optional", ":optional t", None, None, False))
    yield w.plist(entries, w.col, aid)


def _form(w: _Writer, tool: Tool, indent: int, tail_safe: bool = True) -> Generator:
    from plistspec.fmt_comments import ROOT

    dialect = w.dialect
    meta = tool.get("metadata") or {}
    props, names, required = _params(w, tool)
    root = ROOT if w.plan is not None else None
    w.col = indent
    w.put("(" + _HEADS[dialect])
    w.trail(root, "open")
    slots = _slots(w, tool, names)
    counts: dict[str, int] = {}

    def slot_id(key: str) -> int | None:
        n = counts.get(key, 0)
        counts[key] = n + 1
        return w.child(root, ("slot", key, n))

    ids = [slot_id(k) for k, _, _ in slots]
    front = [(s, i) for s, i in zip(slots, ids, strict=True) if s[0] in _FRONT_SLOTS]
    rest = [(s, i) for s, i in zip(slots, ids, strict=True) if s[0] not in _FRONT_SLOTS]

    def start_slot(sid: int | None) -> None:
        w.newline(indent + 1)
        w.lead(sid, indent + 1)

    def slot_line(slot: tuple[str, str, int | None], sid: int | None) -> None:
        key, text, col = slot
        start_slot(sid)
        w.put(key + " ")
        if col == -1:
            text = _stub(w, tool, names, bool(meta.get("async")))
        else:
            text = reindent(text, col, w.col)
        w.put(text)
        w.trail(sid)

    name = tool.get("name")
    if name != {} and name is not None:
        sid = w.child(root, ("slot", ":name", 0))
        start_slot(sid)
        w.put(":name ")
        yield _eval_value(w, name)
        w.trail(sid)
    for s in front:
        slot_line(*s)
    desc = tool.get("description")
    if desc != {} and "description" in tool:
        sid = w.child(root, ("slot", ":description", 0))
        start_slot(sid)
        w.put(":description ")
        yield _eval_value(w, desc)
        w.trail(sid)
    args_id = w.child(root, ("slot", ":args", 0))
    if names:
        start_slot(args_id)
        gptel = dialect == "gptel"
        w.put(":args (list" if gptel else ":args '(")
        opener = w.col - 1 if gptel else w.col - 1
        aids = [w.child(args_id, ("arg", n)) for n in names]
        break_first = args_id is not None and (args_id in w.plan.open or w.has_lead(aids[0]))
        w.trail(args_id, "open")
        if break_first:
            start = (opener - 4 if gptel else opener) + 1
            w.newline(start)
        else:
            if gptel:
                w.put(" ")
            start = w.col
        for i, n in enumerate(names):
            if i or break_first:
                if i:
                    w.newline(start)
                w.lead(aids[i], start)
            if gptel:
                yield _gptel_arg(w, n, props[n], n not in required, aids[i])
            else:
                yield _llm_arg(w, n, props[n], n not in required, aids[i])
            w.trail(aids[i])
        w.end(args_id, start)
        w.put(")")
        w.trail(args_id)
    elif meta.get("args") == "vector":
        # gptel sends a vector :args as properties {} plus the required names of its
        # elements (semantics.md §8): one (:name N) per required name gives both back.
        req = (tool.get("parameters") or {}).get("required")
        req = [r for r in req if isinstance(r, str)] if isinstance(req, list) else []
        start_slot(args_id)
        w.put(":args [" + " ".join(f"(:name {w.p.print_string(r)})" for r in req) + "]")
        w.trail(args_id)
    for s in rest:
        slot_line(*s)
    w.end(root, indent + 1)
    if w.pending and not tail_safe:
        w.newline(indent + 1)
    w.put(")")
    if w.pending:
        w.put(" " + " ".join(w.pending))
        w.pending = []


def tool_form(
    tool: Tool,
    dialect: str = "gptel",
    indent: int = 0,
    *,
    comments: Any = None,
    tail_safe: bool = True,
) -> tuple[str, list[Diagnostic]]:
    """One tool form (no trailing newline) whose ``(`` sits at column ``indent``, and
    the diagnostics for what could not be written.

    ``comments`` (a :class:`plistspec.fmt_comments.CommentPlan`) puts each comment next
    to the node it is anchored to; a comment that could not be written gives a PS530
    info (the caller should then keep the original text). ``tail_safe`` False means
    code follows the form on its last line, so a trailing comment there must not
    end the form: the closing paren then goes on a line of its own.
    """
    if dialect not in _HEADS:
        raise ValueError(f"unknown dialect {dialect!r}")
    diags: list[Diagnostic] = []
    w = _Writer(dialect, _label(tool), diags, comments)
    _run(_form(w, tool, indent, tail_safe))
    if w.plan is not None:
        want = {
            (kind, nid)
            for kind in ("leading", "trailing", "end", "open")
            for nid in getattr(w.plan, kind)
        }
        missing = want - w.written
        if missing:
            diags.append(
                Diagnostic(
                    "PS530",
                    "info",
                    f"tool {w.label}: {len(missing)} comment(s) have no place in the layout",
                )
            )
    return "".join(w.out), diags


def tool_form_text(tool: Tool, dialect: str = "gptel", indent: int = 0) -> str:
    """The canonical text of one tool form whose ``(`` sits at column ``indent``."""
    return tool_form(tool, dialect, indent)[0]


def _comments(tool: Tool, w: _Writer) -> list[str]:
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
    tools: list[Tool], dialect: str | None = "gptel", *, file_name: str | None = None
) -> tuple[str, list[Diagnostic]]:
    """A whole ``.el`` file defining ``tools`` (gptel or llm), and diagnostics.

    ``dialect`` None writes each tool in its own ``metadata.dialect`` (default gptel).
    ``file_name`` (``tools.el`` by default) names the file in its first and last lines
    and in ``(provide 'NAME)``.
    """
    if dialect is not None and dialect not in _HEADS:
        raise ValueError(f"unknown dialect {dialect!r}")
    import os

    base = os.path.basename(file_name) if file_name else "tools.el"
    stem = base[:-3] if base.endswith(".el") else base
    stem = stem or "tools"
    p = _printer()
    diags: list[Diagnostic] = []
    dialects = [dialect or (t.get("metadata") or {}).get("dialect") or "gptel" for t in tools]
    dialects = [d if d in _HEADS else "gptel" for d in dialects]
    libraries = sorted(set(dialects)) or [dialect or "gptel"]
    library = " and ".join(libraries)
    forms: list[str] = []
    stubs = 0
    inner = _nested(tools)
    for k, (tool, dia) in enumerate(zip(tools, dialects, strict=True)):
        if k in inner:
            continue
        w = _Writer(dia, _label(tool), diags)
        comments = _comments(tool, w)
        _run(_form(w, tool, 0))
        text = "".join(w.out)
        if "implemented yet: write its :function" in text:
            stubs += 1
        forms.append("\n".join(comments + [text]))
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
        f";; Loading this file loads {library} (`{_HEADS[libraries[0]]}' is not autoloaded), so",
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
