"""Tool forms → IR tools, with gptel's or llm's exact rules.

Owns: :func:`lower`, which reads a :class:`~plistspec.extract.ToolForm`'s slots the way
the library does (first occurrence of a slot wins), replays the library's own
conversion on a private copy of the values (:mod:`.gptel`, :mod:`.llm`), serializes
with the library's ``json-serialize`` arguments (:mod:`.lispjson`) and builds the IR
tool with its metadata. Where the library itself would fail on the spec (semantics.md
§9), no tool is returned, only error diagnostics at the offending datum:

* ``PS201`` gptel fails on this spec (every backend);
* ``PS202`` llm fails on this spec;
* per-backend gptel failures (e.g. ``:anyOf`` written as a list fails on Gemini first)
  are stored in the tool's metadata and reported by the emitter as ``PS203``.

A tool that Emacs 28 sends but Emacs 30 cannot (a string holding raw bytes, which 28's
``json-serialize`` sends as the UTF-8 they form and 30's refuses) is returned with a
``PS205`` warning at each such string.

Nothing else is reported here (lint-style findings belong to :mod:`plistspec.lint`).

Also here: the JSON each library sends per backend (:mod:`.gptel_wire`, :mod:`.llm_wire`,
:mod:`.envelope`) and the source map from a node of that JSON back to the datum it came
from (:mod:`.sourcemap`). Named ``replay``, not ``lower``: it replays the libraries,
where :mod:`plistspec.lowering` rewrites for a provider.

Layer 4 of docs/architecture.md: may import the sources, :mod:`plistspec.elisp` and
:mod:`plistspec.core`; independent of :mod:`plistspec.lowering`. Public: the names of
``__all__`` below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plistspec.core.diagnostics import Diagnostic, LineIndex, line_index
from plistspec.elisp.datum import Datum, List, Symbol, is_keyword, is_nil
from plistspec.replay import fast  # light (datums only), and needed by every lowering

if TYPE_CHECKING:
    from plistspec.core.ir import Tool

__all__ = ["lower", "too_deep", "GPTEL_ONLY_SLOTS", "MAX_DEPTH"]

#: slots gptel reads but never sends (a non-static value there is harmless)
GPTEL_ONLY_SLOTS = (":function", ":async", ":category", ":confirm", ":include")

_T = Symbol("t", 0, 0)

#: deeper nesting than this (lists and vectors) is refused with PS204
MAX_DEPTH = 150


def _line_index(text: str) -> LineIndex:
    return line_index(text)


def _first_values(form: Any) -> tuple[dict[str, Any], bool]:
    """First value of each slot; ``(values, static)`` where static is False when a slot
    the library sends (:name/:description/:args) could not be evaluated statically."""
    values: dict[str, Any] = {}
    for s in form.slots:
        values.setdefault(s.key.name, s)
    dangling = getattr(form, "dangling", None)
    if dangling is not None and dangling.name not in values:
        values[dangling.name] = None  # a trailing key without a value reads as nil
    static = True
    for key in (":name", ":description", ":args"):
        s = values.get(key)
        if s is not None and s.value is None:
            static = False
    return values, static


def too_deep(d: Datum) -> Datum | None:
    """The first datum nested deeper than :data:`MAX_DEPTH` inside ``d``, if any."""
    from plistspec.elisp.datum import List, Vector

    stack = [(d, 0)]
    while stack:
        x, depth = stack.pop()
        if isinstance(x, (List, Vector)):
            if depth > MAX_DEPTH:
                return x
            for item in x.items:
                if isinstance(item, (List, Vector)):
                    stack.append((item, depth + 1))
            tail = getattr(x, "tail", None)
            if isinstance(tail, (List, Vector)):
                stack.append((tail, depth + 1))
    return None


def _value(values: dict[str, Any], key: str) -> Datum:
    s = values.get(key)
    if s is None:
        return Symbol("nil")
    return s.value


def _error(
    code: str, lib: str, err: Any, fallback: tuple[int, int], path: str | None
) -> Diagnostic:
    from plistspec.replay.lisp import span_of

    start, end = span_of(err.at)
    if start < 0:
        start, end = fallback
    why = err.explain or "the value cannot be serialized"
    return Diagnostic(
        code, "error", f"{lib} fails on this spec: {why} ({err.lisp()})", start, end, path=path
    )


def _literal_json(d: Datum | None) -> Any:
    from plistspec.replay.lisp import LispError, from_datum
    from plistspec.replay.lispjson import GPTEL, serialize

    if d is None:
        return None
    try:
        return serialize(from_datum(d), GPTEL)
    except LispError:
        return None


def _metadata(
    form: Any,
    dialect: str,
    values: dict[str, Any],
    args_value: Any,
    path: str | None,
    full: bool | str = True,
) -> dict[str, Any]:
    text = form.text
    idx = _line_index(text)
    meta: dict[str, Any] = {"dialect": dialect, "head": form.head}
    meta["args"] = (
        "nil" if is_nil(args_value) else ("list" if isinstance(args_value, List) else "vector")
    )
    if not full:
        meta["source"] = _source(idx, form, path)
        return meta
    a = values.get(":async")
    if a is not None and a.value is not None:
        meta["async"] = not is_nil(a.value)
    if full == "layout":
        meta["slots"] = _slots(idx, form)
        meta["source"] = _source(idx, form, path)
        return meta
    fn = values.get(":function")
    meta["function"] = _slot_text(form, fn) if fn is not None and fn.form is not None else None
    for key in ("category", "confirm", "include"):
        s = values.get(":" + key)
        if s is not None and s.value is not None:
            j = _literal_json(s.value)
            if j is not None:
                meta[key] = j
    meta["slots"] = _slots(idx, form)
    meta["source"] = _source(idx, form, path)
    return meta


def _slots(idx: LineIndex, form: Any) -> list[dict[str, Any]]:
    """The slots kept as written (all but ``:name``/``:description``/``:args``): key,
    source text and the column it starts at."""
    slots = []
    for s in form.slots:
        if s.key.name in (":name", ":description", ":args"):
            continue
        start = s.form.start
        column = idx.position(start)[1] - 1 if start >= 0 else 0
        slots.append({"key": s.key.name, "text": _slot_text(form, s), "column": column})
    return slots


def _slot_text(form: Any, slot: Any) -> str:
    """Source text of ``slot``'s value as a constructor call's argument (evaluated),
    which is what the IR's ``metadata.slots``/``function`` hold and ``from-json`` writes
    into a ``gptel-make-tool`` call. A value written as data (a spec plist handed to
    ``apply``, an ``llm-tool-collection-deftool`` spec) is the value itself: a symbol
    there is the function (``#'f``) or the symbol (``'s``), a list is quoted; the
    deftool's ``:function llm-tc/NAME`` is made by the macro, so it is printed, not
    sliced from the source (where only NAME is written). A value read through same-file
    constants is printed as that value."""
    d = slot.form
    if slot.via and slot.value is not None:
        # read through same-file constants (`:category my-category`): the value, since
        # the text written elsewhere (from-json's file) has no such variable
        from plistspec.elisp.printer import print_datum  # these rare slots alone

        d = slot.value
        if not isinstance(d, (Symbol, List)) or is_nil(d) or is_keyword(d) or d == _T:
            return print_datum(d)
        return "'" + print_datum(d)
    data = not slot.evaluated or slot.value is d
    if not data or not isinstance(d, (Symbol, List)) or is_nil(d) or is_keyword(d):
        return form.source(d)
    if d == _T:
        return "t"
    if slot.key.name == ":function" and isinstance(d, Symbol):
        from plistspec.elisp.printer import print_datum

        return "#'" + print_datum(d)
    if slot.key.name == ":function" and d.items and d.items[0] == Symbol("lambda", 0, 0):
        return form.source(d)  # (lambda ...) evaluates to the same function
    return "'" + form.source(d)


def _source(idx: LineIndex, form: Any, path: str | None) -> dict[str, Any]:
    line, col = idx.position(form.start)
    end_line, end_col = idx.position(form.end)
    return {"path": path, "line": line, "column": col, "end_line": end_line, "end_column": end_col}


def lower(
    form: Any, dialect: str | None = None, path: str | None = None, *, full: bool | str = True
) -> tuple[Tool | None, list[Diagnostic]]:
    """The IR tool for ``form`` under ``dialect`` (default: the form's own), or None
    with error diagnostics when the library would fail on it (see module doc).

    With ``full`` False the metadata holds only what the provider emitters read
    (``dialect``, ``head``, ``args``, ``source``, ``gptel_parameters``): for a caller
    that emits a provider format and never shows the IR. With ``full="layout"`` it also
    holds ``slots`` and ``async``, what ``fmt``'s writer lays out from the source.

    A literal spec takes the direct path (:mod:`.fast`); anything else is replayed.
    """
    dialect = dialect or form.dialect
    values, static = _first_values(form)
    if not static:
        return None, []
    name_d = _value(values, ":name")
    desc_d = _value(values, ":description")
    args_d = _value(values, ":args")
    try:
        fields = (fast.gptel_fields if dialect == "gptel" else fast.llm_fields)(
            name_d, desc_d, args_d
        )
    except fast.Bail:
        return _replay(form, dialect, path, values, name_d, desc_d, args_d, full)
    name_j, desc_j, params = fields
    tool: Tool = {
        "type": "function",
        "name": name_j,
        "description": desc_j,
        "parameters": params,
        "metadata": _metadata(form, dialect, values, args_d, path, full),
    }
    return tool, []


def _replay(
    form: Any,
    dialect: str,
    path: str | None,
    values: dict[str, Any],
    name_d: Datum,
    desc_d: Datum,
    args_d: Datum,
    full: bool | str = True,
) -> tuple[Tool | None, list[Diagnostic]]:
    """:func:`lower` by replaying the library's code on the Lisp model (the exact path)."""
    from plistspec.replay.lisp import LispError, from_datum, span_of

    span = (form.start, form.end)
    for d in (name_d, desc_d, args_d):
        deep = too_deep(d)
        if deep is not None:
            msg = (
                f"{dialect} may fail on this spec: it is nested more than {MAX_DEPTH} levels deep, "
                "where the libraries' recursive code runs into max-lisp-eval-depth depending on "
                "how they were loaded (uncompiled gptel fails at about 195 levels, llm at about "
                "315); plistspec will not guess"
            )
            return None, [Diagnostic("PS204", "error", msg, deep.start, deep.end, path=path)]
    code, lib = ("PS201", "gptel") if dialect == "gptel" else ("PS202", "llm")
    raw: list[Any] = []
    try:
        if dialect == "gptel":
            tool = _lower_gptel(from_datum(name_d), from_datum(desc_d), from_datum(args_d), raw)
        else:
            tool = _lower_llm(from_datum(name_d), from_datum(desc_d), from_datum(args_d), raw)
    except LispError as err:
        return None, [_error(code, lib, err, span, path)]
    # one warning per string (gptel serializes the arguments once per backend family)
    diags = list(
        {
            (w.start, w.end): w for w in (_raw_bytes_warning(lib, x, span, path) for x in raw)
        }.values()
    )
    extra = tool["metadata"]
    meta = _metadata(form, dialect, values, args_d, path, full)
    over = extra.get("gptel_parameters")
    if over:
        idx = _line_index(form.text)
        for family, rec in list(over.items()):
            if isinstance(rec, LispError):
                start, end = span_of(rec.at)
                if start < 0:
                    start, end = span
                line, col = idx.position(start)
                why = rec.explain or "the value cannot be serialized"
                over[family] = {
                    "error": f"gptel fails on this spec for {family}: {why} ({rec.lisp()})",
                    "start": start,
                    "end": end,
                    "line": line,
                    "column": col,
                }
        meta["gptel_parameters"] = over
    tool["metadata"] = meta
    return tool, diags


def _raw_bytes_warning(lib: str, s: Any, fallback: tuple[int, int], path: str | None) -> Diagnostic:
    from plistspec.replay.lisp import span_of

    start, end = span_of(s)
    if start < 0:
        start, end = fallback
    return Diagnostic(
        "PS205",
        "warning",
        f"{lib} fails on this spec on Emacs 30: its json-serialize refuses a string holding raw "
        "bytes (wrong-type-argument json-value-p), which Emacs 28 sends as the UTF-8 text they "
        'form; write the text itself ("é", "\\u00e9", not "\\xc3\\xa9" or "\\303\\251")',
        start,
        end,
        path=path,
    )


def _json(v: Any, flavor: Any, raw: list[Any] | None = None) -> Any:
    from plistspec.replay.lispjson import serialize

    return serialize(v, flavor, raw)


def _lower_gptel(name: Any, desc: Any, args: Any, raw: list[Any] | None = None) -> Tool:
    from plistspec.replay import gptel as g
    from plistspec.replay.gptel_wire import derive_parameters
    from plistspec.replay.lisp import LispError, deep_copy, is_nil
    from plistspec.replay.lispjson import GPTEL

    name_j = _json(name, GPTEL, raw)
    desc_j = _json(desc, GPTEL, raw)
    args = g.preprocess(args)
    results: dict[str, tuple[bool, Any]] = {}
    for family in g.FAMILIES:
        try:
            value = g.build_parameters(deep_copy(args), family)
            results[family] = (True, _json(value, GPTEL, raw))
        except LispError as err:
            results[family] = (False, err)
    ok = [f for f in g.FAMILIES if results[f][0]]
    if not ok:
        raise results["generic"][1]
    base = "generic" if results["generic"][0] else ok[0]
    params = results[base][1]
    if params.get("required") == []:
        params = {k: v for k, v in params.items() if k != "required"}
    args_kind = "nil" if is_nil(args) else "list"
    probe = {"parameters": params, "metadata": {"args": args_kind}}
    overrides: dict[str, Any] = {}
    for family in ("openai", "anthropic", "gemini"):
        good, value = results[family]
        if not good:
            overrides[family] = value  # a LispError; lower() turns it into a record
        elif base != "generic" or not _same(derive_parameters(probe, family), value):
            overrides[family] = {"parameters": value}
    meta: dict[str, Any] = {"gptel_parameters": overrides} if overrides else {}
    return {
        "type": "function",
        "name": name_j,
        "description": desc_j,
        "parameters": params,
        "metadata": meta,
    }


def _same(a: Any, b: Any) -> bool:
    """Key order equal everywhere (``==`` on dicts ignores order)."""
    import json

    return json.dumps(a) == json.dumps(b)


def _lower_llm(name: Any, desc: Any, args: Any, raw: list[Any] | None = None) -> Tool:
    from plistspec.replay import llm as l
    from plistspec.replay.lispjson import LLM

    name_j = _json(name, LLM, raw)
    desc_j = _json(desc, LLM, raw)
    params = _json(l.build_parameters(args), LLM, raw)
    return {
        "type": "function",
        "name": name_j,
        "description": desc_j,
        "parameters": params,
        "metadata": {},
    }
