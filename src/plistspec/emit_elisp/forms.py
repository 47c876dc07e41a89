"""Tool forms: one ``(gptel-make-tool ...)`` / ``(llm-make-tool ...)`` form from an IR tool.

Owns: :func:`tool_form` / :func:`tool_form_text`: the order of the slots, the ``:args``
list (gptel ``(list '( :name ...) ...)``, llm ``'(( :name ...) ...)``), which schema keys
each dialect keeps, and the non-schema slots (``:function`` and the others) taken from the
IR's metadata. Values are laid out by :mod:`plistspec.emit_elisp.layout`.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool
from plistspec.core.jsontext import brief
from plistspec.emit_elisp.layout import Writer
from plistspec.emit_elisp.llm_types import composed_type
from plistspec.emit_elisp.reindent import reindent
from plistspec.emit_elisp.stub import stub

__all__ = ["tool_form", "tool_form_text", "write_form", "label", "HEADS"]

_LLM_KEEPS = ("type", "description", "enum", "items", "properties")
_FRONT_SLOTS = (":function",)
_NULL_KEYS = frozenset({"type", "description", "title"})
_PARAM_KEYS = frozenset({"type", "properties", "required"})
HEADS = {"gptel": "gptel-make-tool", "llm": "llm-make-tool"}
ROOT = 0  # the id of the form itself in a comment plan

# --------------------------------------------------------------------------------------
# Tool forms


def label(tool: Tool) -> str:
    name = tool.get("name")
    return repr(name) if isinstance(name, str) else brief(name)


def _eval_value(w: Writer, key: str, v: Any) -> None:
    """``key`` and its value in evaluated position (``:name``, ``:description``)."""
    if type(v) is str:  # the common case: one piece
        w.put(key + w.pstr(v))
        return
    w.put(key + ("'" if isinstance(v, dict) and v else ""))
    w.value(v, "G")


def _slot_literal(w: Writer, v: Any) -> str:
    if v is True:
        return "t"
    if v is None or v is False or v == {}:
        return "nil"
    if isinstance(v, (dict, list)) and v:
        return ("'" if isinstance(v, dict) else "") + (w.flat(v, "G", None) or "")
    return w.atom(v, "G") or "nil"


def _slots(w: Writer, tool: Tool, props: list[str]) -> list[tuple[str, str, int | None]]:
    """The non-schema slots as ``(key, text, source column)``; with the writer's
    ``category`` (``from-json --category``), gptel's ``:category`` is that one (a
    different one the tool had is replaced, with a PS531 info saying so)."""
    out = _own_slots(w, tool, props)
    if w.category is None or w.dialect != "gptel":
        return out
    text = w.pstr(w.category)
    for i, (key, old, _col) in enumerate(out):
        if key == ":category":
            if old != text:
                w.warn("PS531", f"its :category {old} is replaced by {text}", "info")
            out[i] = (key, text, None)
            return out
    return out + [(":category", text, None)]


def _own_slots(w: Writer, tool: Tool, props: list[str]) -> list[tuple[str, str, int | None]]:
    """The tool's own non-schema slots as ``(key, text, source column)``."""
    meta = tool.get("metadata") or {}
    slots = meta.get("slots")
    if isinstance(slots, list):
        out = []
        has_function = False
        for s in slots:
            if isinstance(s, dict) and "key" in s:
                out.append((s["key"], s["text"], s.get("column")))
                has_function = has_function or s["key"] == ":function"
        if not has_function:
            if meta.get("function"):
                out.insert(0, (":function", meta["function"], None))
            elif meta.get("function_dropped"):
                out.insert(0, (":function", "", -1))  # dropped as unsafe: the stub
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
            and ann.get("readOnlyHint") is not True
            and ann.get("destructiveHint") is not False
        ):
            # MCP's defaults: readOnlyHint false, destructiveHint true (meaningful only
            # when not read-only): annotations that do not say otherwise mean destructive
            out.append((":confirm", "t", None))
    return out


def _params(w: Writer, tool: Tool) -> tuple[dict, list[str], set[str]]:
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
    if not params.keys() <= _PARAM_KEYS:
        extra = [k for k in params if k not in _PARAM_KEYS]
        w.warn(
            "PS521",
            f"dropped root {', '.join(extra)} of the parameter schema: a gptel/llm spec has no place for it",
        )
    req = params.get("required") or []
    required: set[str] = set()
    if isinstance(req, list):
        for r in req:
            if isinstance(r, str):
                required.add(r)
    if "" in props:
        w.warn("PS521", 'property "" cannot be written: gptel and llm send an empty :name as ":"')
    missing = required - props.keys()
    if missing and (tool.get("metadata") or {}).get("args") != "vector":
        w.warn(
            "PS521",
            f"required names that are not properties were dropped: {', '.join(sorted(missing))}",
        )
    return props, list(props), required


def _gptel_arg(w: Writer, name: str, schema: Any, optional: bool, aid: int | None) -> None:
    """The arg's quoted plist."""
    if not isinstance(schema, dict):
        w.warn(
            "PS523",
            f"property {name!r}: schema {brief(schema)} is not an object; written as {{}}",
        )
        schema = {}
    entries: list[tuple] = [(":name", ":name " + w.pstr(name), None, None, False)]
    own_optional = "optional" in schema
    if own_optional:
        # gptel reads the first :optional as the flag and sends a second one as a key.
        entries.append(
            (":optional", ":optional " + ("t" if optional else "nil"), None, None, False)
        )
    for k, sub in schema.items():
        entries.append((k, None, sub, "G", k == "type"))
    if optional and not own_optional:
        entries.append((":optional", ":optional t", None, None, False))
    w.put("'")
    w.plist(entries, w.col, aid)


def _is_null(s: Any) -> bool:
    return isinstance(s, dict) and s.get("type") == "null" and set(s) <= _NULL_KEYS


def _unnull(schema: dict) -> tuple[dict, bool]:
    """A nullable union without its null: ``(schema, True)`` for ``"type": [T, "null"]``
    and ``anyOf``/``oneOf`` ``[S, {"type": "null"}]`` (S's keys merged in, the arg's own
    keys winning); ``(schema, False)`` otherwise. llm cannot send ``null`` (it turns it
    into ``nil``), so "may be null" is said the way llm can: ``:optional t``."""
    t = schema.get("type")
    if isinstance(t, list) and "null" in t:
        rest = [x for x in t if x != "null"]
        out = dict(schema)
        if len(rest) == 1:
            out["type"] = rest[0]
        elif rest:
            out["type"] = rest
        else:
            del out["type"]
        return out, True
    for key in ("anyOf", "oneOf"):
        alts = schema.get(key)
        if not isinstance(alts, list) or not any(_is_null(a) for a in alts):
            continue
        rest = [a for a in alts if not _is_null(a)]
        if len(rest) == 1 and isinstance(rest[0], dict):
            out = {k: v for k, v in schema.items() if k != key}
            for k, v in rest[0].items():
                out.setdefault(k, v)
            return out, True
    return schema, False


def _llm_arg(w: Writer, name: str, schema: Any, optional: bool, aid: int | None) -> None:
    """The arg's plist (llm's quote is the one before the list of args)."""
    if not isinstance(schema, dict):
        w.warn(
            "PS523",
            f"property {name!r}: schema {brief(schema)} is not an object; written as {{}}",
        )
        schema = {}
    schema, nullable = _unnull(schema)
    optional = optional or nullable
    for k in schema:
        if k not in _LLM_KEEPS:
            why = (
                "llm cannot express it"
                if k in ("anyOf", "oneOf", "allOf")
                else "llm drops it at the arg level"
            )
            w.warn("PS520", f"property {name!r}: dropped :{k} ({why})")
    t = schema.get("type")
    composed = composed_type(schema) if t is None else None
    if composed is not None:  # the branches agree on one type (and constants: an enum)
        t = composed[0]
        if composed[1] is not None and "enum" not in schema:
            schema = {**schema, "enum": composed[1]}
    entries: list[tuple] = [(":name", ":name " + w.p.print_string(name), None, None, False)]
    if isinstance(t, list):
        members = [x for x in t if x != "null"]
        w.warn(
            "PS520",
            f"property {name!r}: llm cannot express the type array {brief(t)}; written as its first non-null member",
        )
        t = members[0] if members else None
    if t is None:
        w.warn("PS520", f'property {name!r}: no :type; llm sends "type": "nil"')
    elif not isinstance(t, str):
        w.warn("PS520", f"property {name!r}: llm needs a symbol :type, not {brief(t)}; dropped")
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
    w.plist(entries, w.col, aid)


def write_form(w: Writer, tool: Tool, indent: int, tail_safe: bool = True) -> None:
    """Write ``tool``'s form into ``w``, its ``(`` at column ``indent``."""
    dialect = w.dialect
    meta = tool.get("metadata") or {}
    props, names, required = _params(w, tool)
    root = ROOT if w.plan is not None else None
    w.col = indent
    w.put("(" + HEADS[dialect])
    w.trail(root, "open")
    slots = _slots(w, tool, names)
    counts: dict[str, int] = {}

    def slot_id(key: str) -> int | None:
        n = counts.get(key, 0)
        counts[key] = n + 1
        return w.child(root, ("slot", key, n))

    ids = [slot_id(k) for k, _, _ in slots] if root is not None else [None] * len(slots)
    front, rest = [], []  # (slot, id): written before and after the schema slots
    for s, i in zip(slots, ids, strict=True):
        (front if s[0] in _FRONT_SLOTS else rest).append((s, i))

    def start_slot(sid: int | None) -> None:
        w.newline(indent + 1)
        w.lead(sid, indent + 1)

    def slot_line(slot: tuple[str, str, int | None], sid: int | None) -> None:
        key, text, col = slot
        start_slot(sid)
        w.put(key + " ")
        if col == -1:
            text = stub(tool.get("name"), names, bool(meta.get("async")), w.col)
        else:
            text = reindent(text, col, w.col)
        w.put(text)
        w.trail(sid)

    name = tool.get("name")
    if name != {} and name is not None:
        sid = w.child(root, ("slot", ":name", 0))
        start_slot(sid)
        _eval_value(w, ":name ", name)
        w.trail(sid)
    for s in front:
        slot_line(*s)
    desc = tool.get("description")
    if desc != {} and "description" in tool:
        sid = w.child(root, ("slot", ":description", 0))
        start_slot(sid)
        _eval_value(w, ":description ", desc)
        w.trail(sid)
    args_id = w.child(root, ("slot", ":args", 0))
    if names:
        start_slot(args_id)
        gptel = dialect == "gptel"
        w.put(":args (list" if gptel else ":args '(")
        opener = w.col - 1 if gptel else w.col - 1
        aids = (
            [w.child(args_id, ("arg", n)) for n in names]
            if args_id is not None
            else [None] * len(names)
        )
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
                _gptel_arg(w, n, props[n], n not in required, aids[i])
            else:
                _llm_arg(w, n, props[n], n not in required, aids[i])
            w.trail(aids[i])
        w.end(args_id, start)
        w.put(")")
        w.trail(args_id)
    elif meta.get("args") == "vector":
        # gptel sends a vector :args as properties {} plus the required names of its
        # elements (semantics.md §8): one (:name N) per required name gives both back.
        params = tool.get("parameters")
        req = params.get("required") if isinstance(params, dict) else None
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

    ``comments`` (a comment plan: node ids, their comments; see the writer snapshot) puts each comment next
    to the node it is anchored to; a comment that could not be written gives a PS530
    info (the caller should then keep the original text). ``tail_safe`` False means
    code follows the form on its last line, so a trailing comment there must not
    end the form: the closing paren then goes on a line of its own.
    """
    if dialect not in HEADS:
        raise ValueError(f"unknown dialect {dialect!r}")
    diags: list[Diagnostic] = []
    w = Writer(dialect, label(tool), diags, comments)
    write_form(w, tool, indent, tail_safe)
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
