"""Placing lowering rewrites in Emacs Lisp source: JSON pointer → the datum it came from.

Owns: :func:`place`. For tools read from Elisp, each rewrite's pointer
(``/parameters/properties/unit/enum``) is followed through the tool form the same way
``check --target`` pairs JSON nodes with plists (:mod:`plistspec.lint.targets`): a
property is its arg plist (gptel: the first arg of that name, llm: the last), a nested
keyword its key in the plist, a member of ``anyOf``/``enum`` its vector element. The walk
stops at the deepest datum it can follow, so a rewrite always points somewhere in the
form (at worst its head).
"""

from __future__ import annotations

from typing import Any

from plistspec.diagnostics import Diagnostic

__all__ = ["place", "follow"]


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def place(diags: list[Diagnostic], records: list, tools: list[dict[str, Any]], text: str) -> None:
    """Give each diagnostic (made from ``records``, same order) the span of its datum."""
    from plistspec.elisp.recover import read_recovering
    from plistspec.extract import find_tools

    datums, _ = read_recovering(text)
    forms, _ = find_tools(datums, text)
    from plistspec.diagnostics import line_index

    index = line_index(text)
    by_pos = {index.position(f.start): f for f in forms}
    for d, rec in zip(diags, records, strict=True):
        tool = tools[rec.tool] if rec.tool < len(tools) else {}
        src = (tool.get("metadata") or {}).get("source") or {}
        form = by_pos.get((src.get("line"), src.get("column")))
        if form is None:
            continue
        datum = follow(form, rec.pointer, tool)
        d.start, d.end = datum.start, datum.end


def follow(form, pointer: str, tool: dict | None) -> Any:
    """The datum of ``form`` that the tool JSON at ``pointer`` came from (at worst the head)."""
    from plistspec.elisp.datum import List, Symbol, Vector
    from plistspec.lint._util import is_plist, key_name, plist_pairs
    from plistspec.lint.targets import _arg_map as arg_map

    tool = tool or {}

    head = Symbol(form.head, form.start, min(form.end, form.start + 1 + len(form.head)))
    parts = [_unescape(x) for x in pointer.split("/")[1:]]
    if not parts:
        return head
    if parts[0] in ("name", "description"):
        s = form.slot(":" + parts[0])
        return s.value if s is not None and s.value is not None else head
    args = form.slot(":args")
    if args is None:
        return head
    cur: Any = args.key
    value = args.value
    if not isinstance(value, (List, Vector)) or len(parts) < 3 or parts[1] != "properties":
        return cur
    llm = ((tool.get("metadata") or {}).get("dialect")) == "llm"
    mapping = arg_map([a for a in value.items if is_plist(a)], llm)
    if parts[2] not in mapping:
        return cur
    plist, name_datum = mapping[parts[2]]
    cur = name_datum
    node: Any = plist
    i = 3
    while i < len(parts) and isinstance(node, List):
        key = parts[i]
        pairs = {}
        for k, v in plist_pairs(node)[0]:
            kn = key_name(k)
            if kn is not None and kn not in pairs:
                pairs[kn] = (k, v)
        if key not in pairs:
            break
        k, v = pairs[key]
        cur = k
        i += 1
        if key == "properties" and i < len(parts) and isinstance(v, List):
            sub = {}
            for kk, vv in plist_pairs(v)[0]:
                kn = key_name(kk)
                if kn is not None and kn not in sub:
                    sub[kn] = (kk, vv)
            if parts[i] not in sub:
                break
            cur, node = sub[parts[i]]
            i += 1
            continue
        if isinstance(v, Vector) and i < len(parts) and parts[i].isdigit():
            idx = int(parts[i])
            if idx < len(v.items):
                cur = node = v.items[idx]
                i += 1
                continue
            break
        node = v
        if isinstance(v, List):
            continue
        cur = v if i == len(parts) else cur
        break
    return cur
