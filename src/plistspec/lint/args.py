"""``:args`` lints: the list of arg plists and each arg's name.

Owns: the shape of ``:args`` itself (a vector, a single plist, a non-list: PS329), each
element being an arg plist (PS329), each arg's ``:name`` (missing, nil, empty, a keyword
or a symbol: PS309, PS310), duplicate arg names (PS311) and an async tool listing its
callback as an arg (PS336). Each well-formed arg is then handed, in order, to
:func:`plistspec.lint.schema.walk_arg` for the lints of its schema.
"""

from __future__ import annotations

from plistspec.core.diagnostics import Fix
from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil
from plistspec.lint._util import Sink, brief, elisp_string, is_plist
from plistspec.lint.schema import walk_arg

__all__ = ["args_slot", "CALLBACK_NAMES"]

CALLBACK_NAMES = ("callback", "cb", "callback-fn", "callback_fn", "cont", "continuation")


def args_slot(sink: Sink, value: Datum, dialect: str, is_async: bool) -> None:
    """The findings of the ``:args`` slot ``value``, each arg's followed by its schema's
    (``is_async``: the tool's ``:async`` is ``t``)."""
    if is_nil(value):
        return
    if isinstance(value, Vector):
        sink.add(
            "PS329",
            "error",
            ":args is a vector: gptel sends properties {} with a non-empty required, llm fails; "
            "write a list of arg plists",
            value,
            fix=_vector_to_list(sink, value),
        )
        elements = value.items
    elif isinstance(value, List) and is_plist(value):
        wrapped = None
        if sink.written(value) and sink.text[value.start] == "(":
            inner = sink.text[value.start : value.end]
            built = bool(value.items) and sink.text[value.start + 1 : value.items[0].start].strip()
            wrapped = Fix(value.start, value.end, f"(list {inner})" if built else f"({inner})")
        sink.add(
            "PS329",
            "error",
            ":args is a single plist, not a list of arg plists: gptel fails and llm sends "
            "garbage; wrap it in another pair of parentheses",
            value,
            fix=wrapped,
        )
        elements = [value]
    elif isinstance(value, List):
        elements = list(value.items)
    else:
        sink.add(
            "PS329", "error", f":args {brief(value, sink.text)} is not a list of arg plists", value
        )
        return
    names: dict[str, Datum] = {}
    for arg in elements:
        if not is_plist(arg):
            sink.add(
                "PS329",
                "error",
                f'this arg {brief(arg, sink.text)} is not a plist such as (:name "x" :type string)',
                arg,
            )
            continue
        assert isinstance(arg, List)
        name = _arg_name(sink, arg)
        if name is not None and is_async and name[0].lower() in CALLBACK_NAMES:
            sink.add(
                "PS336",
                "warning",
                f"async tool lists its callback {elisp_string(name[0])} in :args: the library "
                "passes the callback itself, as the first argument; the model would be asked "
                "for it too (delete this arg)",
                arg,
                end=arg.items[0],
            )
        if name is not None:
            n, d = name
            if n in names:
                sink.add(
                    "PS311",
                    "error",
                    f"duplicate arg name {elisp_string(n)} (first on line {sink.line(names[n])}): "
                    "gptel keeps the first arg's schema (Emacs 30 sends both; most JSON parsers "
                    "keep the later), llm the later one's in the first one's place, and required "
                    "lists the name twice",
                    d,
                )
            else:
                names[n] = d
        walk_arg(sink, arg, dialect)


def _vector_to_list(sink: Sink, v: Vector) -> Fix | None:
    t = sink.text
    if not sink.written(v) or t[v.start] != "[" or t[v.end - 1] != "]":
        return None
    return Fix(v.start, v.end, "(" + t[v.start + 1 : v.end - 1] + ")")


def _arg_name(sink: Sink, arg: List) -> tuple[str, Datum] | None:
    items = arg.items
    for i in range(0, len(items) - 1, 2):
        k = items[i]
        if type(k) is Symbol and k.name == ":name":
            v = items[i + 1]
            if isinstance(v, String) and v.value:
                return v.value, v
            if is_nil(v):
                sink.add(
                    "PS309", "error", 'arg :name is nil: gptel sends the property ":", llm "nil"', v
                )
            elif isinstance(v, String):
                sink.add(
                    "PS310",
                    "error",
                    'empty arg name: gptel sends the property ":" and required ""',
                    v,
                )
            elif isinstance(v, Symbol) and v.name.startswith(":"):
                sink.add(
                    "PS310",
                    "error",
                    f"arg :name is the keyword {v.name}: gptel fails to send it, llm sends "
                    f'"{v.name}"; write a string',
                    v,
                    fix=sink.replace(v, elisp_string(v.name[1:]), v.name)
                    if len(v.name) > 1
                    else None,
                )
            elif isinstance(v, Symbol):
                sink.add(
                    "PS310",
                    "error",
                    f"arg :name is the symbol {v.name}: gptel fails on it; write a string",
                    v,
                    fix=sink.replace(v, elisp_string(v.name), v.name),
                )
            else:
                sink.add("PS310", "error", f"arg :name {brief(v, sink.text)} is not a string", v)
            return None
    sink.add(
        "PS309",
        "error",
        'arg without :name: gptel sends it as the property ":" (not required), llm as "nil"',
        arg,
        end=arg.items[0],
    )
    return None
