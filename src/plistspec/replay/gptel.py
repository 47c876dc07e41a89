"""gptel 0.9.9.5's tool JSON, computed by replaying its code on the Lisp value model.

Owns: ``gptel--preprocess-tool-args`` (§2 of semantics.md: symbol ``:type`` values
become strings, destructively, on a private copy), the per-tool schema builders of the
three gptel schema families (§3-§5: the OpenAI family ``openai``/``openai-responses``/
``ollama``/``bedrock``, ``anthropic``, ``gemini`` with its ``:format`` removal and
``additionalProperties`` filter) and a ``generic`` variant without any per-backend
addition (the IR's ``parameters``). Each builder returns the Lisp value gptel would hand
to ``json-serialize``; errors are :class:`~plistspec.replay.lisp.LispError`.

Everything is iterative, and every step follows the Lisp primitives' exact behaviour
(first key wins in ``plist-get``, ``cl-remf`` removes only the first pair, ``plist-put``
overwrites in place or appends, ``copy-sequence`` is shallow).
"""

from __future__ import annotations

from typing import Any

from plistspec.elisp.datum import String, Symbol
from plistspec.replay.lisp import (
    NIL,
    LispError,
    LList,
    Vec,
    cl_remf,
    concat_name,
    copy_sequence,
    eq,
    equal,
    is_keyword,
    is_list,
    is_nil,
    kw,
    plist_get,
    plist_member,
    plist_put,
)

__all__ = ["preprocess", "build_parameters", "required_names", "FAMILIES"]

#: The schema families: which backends share one builder.
FAMILIES = ("generic", "openai", "anthropic", "gemini")

_TYPE = kw(":type")
_NAME = kw(":name")
_OPTIONAL = kw(":optional")
_REQUIRED = kw(":required")
_ADDPROPS = kw(":additionalProperties")
_FORMAT = kw(":format")
_ANYOF = kw(":anyOf")
_ALLOF = kw(":allOf")
_JSON_FALSE = Symbol(":json-false")
_NULL = Symbol(":null")
_OBJECT = String("object")
_STRING = String("string")


def _dotted(v: LList) -> LispError:
    return LispError("wrong-type-argument", "listp", v.tail, "a dotted list")


def preprocess(spec: Any) -> Any:
    """``gptel--preprocess-tool-args``: destructively turn symbol ``:type`` values into
    strings, walking vectors, plist values and the list elements of other lists."""
    stack = [spec]
    while stack:
        s = stack.pop()
        if isinstance(s, Vec):
            stack.extend(reversed(s))
        elif isinstance(s, LList):
            if is_keyword(s[0]):
                n = len(s)
                for i in range(0, n, 2):
                    if i + 1 >= n:
                        if s.tail is not None:
                            raise _dotted(s)
                        if eq(s[i], _TYPE):  # (setcar (cdr tail) ...) on nil
                            raise LispError(
                                "wrong-type-argument",
                                "consp",
                                NIL,
                                ":type has no value (odd-length plist)",
                                at=s[i],
                            )
                        continue
                    val = s[i + 1]
                    if eq(s[i], _TYPE) and isinstance(val, Symbol):
                        s[i + 1] = val = String(val.name, val.start, val.end)
                    if isinstance(val, (LList, Vec)):
                        stack.append(val)
                if s.tail is not None:
                    raise _dotted(s)
            else:
                for el in s:
                    if isinstance(el, LList):
                        stack.append(el)
                if s.tail is not None:
                    raise _dotted(s)
    return spec


def _mapcar_items(args: Any) -> list[Any]:
    """The elements ``mapcar`` visits in ``args`` (signals like ``mapcar``)."""
    if isinstance(args, LList):
        if args.tail is not None:
            raise _dotted(args)
        return list(args)
    if isinstance(args, Vec):
        return list(args)
    if isinstance(args, String):
        from plistspec.elisp.datum import Integer

        return [Integer(ord(c)) for c in args.value]
    if is_nil(args):
        return []
    raise LispError("wrong-type-argument", "sequencep", args, ":args must be a list of plists")


def required_names(args: Any) -> Vec:
    """``(vconcat (delq nil (mapcar (lambda (arg) (and (not (plist-get arg :optional))
    (plist-get arg :name))) args)))``."""
    out = []
    for arg in _mapcar_items(args):
        if is_nil(plist_get(arg, _OPTIONAL)):
            name = plist_get(arg, _NAME)
            if not is_nil(name):
                out.append(name)
    return Vec(out)


def _gemini_filter(schema: Any) -> Any:
    """The Gemini filter (semantics.md §5): remove the first ``:additionalProperties``,
    recurse into ``:anyOf``/``:allOf`` vectors and into even-length proper list values."""
    # Each work item: (value, setter) where setter stores the filtered value.
    result: list[Any] = [None]

    def set_root(v: Any) -> None:
        result[0] = v

    stack: list[tuple[Any, Any]] = [(schema, set_root)]
    while stack:
        s, setter = stack.pop()
        s = cl_remf(s, _ADDPROPS)
        setter(s)
        if not isinstance(s, LList):
            continue
        n = len(s)
        for i in range(0, n, 2):
            key = s[i]
            val = s[i + 1] if i + 1 < n else NIL
            if eq(key, _ANYOF) or eq(key, _ALLOF):
                if is_nil(val):
                    continue
                if isinstance(val, Vec):
                    for j in range(len(val)):
                        stack.append((val[j], _setter(val, j)))
                elif isinstance(val, String):
                    if val.value:
                        from plistspec.elisp.datum import Integer

                        raise LispError("wrong-type-argument", "listp", Integer(ord(val.value[0])))
                else:
                    raise LispError(
                        "wrong-type-argument",
                        "arrayp",
                        val,
                        f"{key.name} must be a vector, not {'a list' if isinstance(val, LList) else 'this value'}",
                    )
            elif is_list(val) and not is_nil(val):
                if val.tail is not None:
                    raise _dotted(val)
                if len(val) % 2 == 0 and i + 1 < n:
                    stack.append((val, _setter(s, i + 1)))
    return result[0]


def _setter(container: list[Any], index: int) -> Any:
    def set_(v: Any) -> None:
        container[index] = v

    return set_


def build_parameters(args: Any, family: str) -> Any:
    """The Lisp value gptel puts under ``parameters``/``input_schema`` for ``args``
    (already preprocessed), for one schema family of :data:`FAMILIES`."""
    if is_nil(args):
        if family == "gemini":
            return _NULL
        if family == "anthropic":
            return LList([_TYPE, _OBJECT, kw(":properties"), NIL, _REQUIRED, Vec([])])
        return LList([_TYPE, _OBJECT, kw(":properties"), NIL])
    props: list[Any] = []
    if isinstance(args, LList):  # (cl-loop for arg in args ...) stops at a dotted tail
        for arg in args:
            argspec = copy_sequence(arg)
            name = plist_get(arg, _NAME)
            if is_keyword(name):
                newname: Any = name
            else:
                newname = Symbol(concat_name(":", name))  # make-symbol: uninterned
                newname.start, newname.end = (
                    (name.start, name.end) if isinstance(name, (String,)) else (-1, -1)
                )
            argspec = cl_remf(argspec, _NAME)
            argspec = cl_remf(argspec, _OPTIONAL)
            if equal(plist_get(arg, _TYPE), _OBJECT):
                if not plist_member(argspec, _REQUIRED):
                    if family != "generic":
                        plist_put(argspec, _REQUIRED, Vec([]))
                if family == "openai":
                    plist_put(argspec, _ADDPROPS, _JSON_FALSE)
            if family == "gemini":
                if equal(plist_get(argspec, _TYPE), _STRING):
                    argspec = cl_remf(argspec, _FORMAT)
                argspec = _gemini_filter(argspec)
            props.append(newname)
            props.append(argspec)
    required = required_names(args)
    out = [_TYPE, _OBJECT, kw(":properties"), LList(props) if props else NIL, _REQUIRED, required]
    if family == "openai":
        out += [_ADDPROPS, _JSON_FALSE]
    return LList(out)
