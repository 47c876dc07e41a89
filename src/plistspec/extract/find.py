"""Finding tool definitions in a tree of datums and reading their slots.

Owns: :func:`find_tools`: which forms define tools (the heads of :mod:`.forms`, the
file's own wrappers of :mod:`.wrappers`, spec plists handed to ``(apply
#'gptel-make-tool SPEC)``, ``llm-tool-collection-deftool``), at any depth, and the
:class:`~.forms.ToolForm` of each, its slots evaluated by :mod:`.static_eval` with the
file's constants (:mod:`.constants`). What needs real evaluation gives a ``PS101``
warning (``PS103`` info for run-time-only slots) at its span; a tool made in a way it
cannot follow at all, a ``PS104`` info (:mod:`.unread`).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress, repeat

from plistspec.core.diagnostics import Diagnostic
from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil
from plistspec.extract.bindings import FileContext
from plistspec.extract.constants import Env, file_constants
from plistspec.extract.forms import (
    DEFTOOL_HEAD,
    TOOL_HEADS,
    WRAPPER_HEADS,
    NotStatic,
    Slot,
    ToolForm,
    function_name,
)
from plistspec.extract.static_eval import backquote, static_eval
from plistspec.extract.unread import unread_constructors
from plistspec.extract.wrappers import (
    WRAPPER_DEFINERS,
    WRAPPER_MACROS,
    file_wrappers,
    has_unquote,
)

__all__ = ["find_tools", "call_form", "needs_whole_file", "CONTEXT_HEADS"]


def find_tools(
    datums: list[Datum], text: str, *, constants: bool = True, alone: bool = False
) -> tuple[list[ToolForm], list[Diagnostic]]:
    """Every tool definition in ``datums`` (the top-level forms of ``text``), in source order.

    Returns the tool forms and the diagnostics of what could not be read statically.
    With ``constants`` (the default), a slot may read a constant of the same file (see
    :func:`file_constants`); its :attr:`Slot.via` then names it. A caller that rewrites
    tool forms from their values (and so would inline the constant) passes False or
    leaves alone the forms whose slots have a ``via``. ``alone``: the caller found
    :func:`needs_whole_file` False for ``datums`` (it is not surveyed again).
    """
    tools: list[ToolForm] = []
    diags: list[Diagnostic] = []
    spec_dialect, defines, defuns = (None, False, False) if alone else _survey(datums)
    wrappers = file_wrappers(datums) if defuns else {}
    env = Env(file_constants(datums, readers=wrappers) if constants and defines else {})
    # Iterative pre-order walk over lists and vectors only (atoms define nothing);
    # ``in_quote`` is True inside quoted data. Plain quoted data is walked only when the
    # file hands spec plists to ``apply`` (its unquotes are not evaluated by Emacs).
    # Hot (every form of a streamed file): a list whose head is none of ``special`` only
    # has its items walked, and only the items that can hold a form are pushed (lists;
    # in quoted data vectors too), picked at C level by their exact types (datum classes
    # have no subclasses).
    containers = (List, Vector)
    special = _SPECIAL_HEADS.union(wrappers) if wrappers else _SPECIAL_HEADS
    stack: list[tuple[Datum, bool]] = [(d, False) for d in reversed(datums) if isinstance(d, List)]
    extend = stack.extend
    while stack:
        d, in_quote = stack.pop()
        if not isinstance(d, List):  # a vector: only quoted data holds forms in one
            if in_quote and isinstance(d, Vector):
                r = d.items[::-1]
                extend(_quoted_containers(r))
            continue
        items = d.items
        h = items[0]
        head = h.name if isinstance(h, Symbol) and d.tail is None else None
        if not in_quote:
            if head not in special:
                pass
            elif head in TOOL_HEADS:
                tools.append(_call_form(d, head, TOOL_HEADS[head], text, diags, env))
                # a tool may be built inside another one's slots (e.g. in its :function)
                r = items[:0:-1]  # the items after the head, last first
                extend(_lists(r))
                continue
            elif head in WRAPPER_HEADS and len(d.items) > 1 + WRAPPER_HEADS[head][1]:
                dialect, skip = WRAPPER_HEADS[head]
                tools.append(_call_form(d, head, dialect, text, diags, env, skip))
                r = items[:0:-1]  # the items after the head, last first
                extend(_lists(r))
                continue
            elif head in wrappers and len(d.items) > 1:
                dialect, lead = wrappers[head]
                tools.append(_call_form(d, head, dialect, text, diags, env, 0, lead))
                r = items[:0:-1]  # the items after the head, last first
                extend(_lists(r))
                continue
            elif head == DEFTOOL_HEAD:
                form = _deftool_form(d, text, diags)
                if form is not None:
                    tools.append(form)
                    r = items[:4:-1]  # the items after the first five, last first
                    extend(_lists(r))
                    continue
            elif head == "apply" and len(d.items) >= 3:
                target = function_name(d.items[1])
                if target in TOOL_HEADS:
                    form = _apply_form(d, target, text, diags, env)
                    if form is not None:
                        tools.append(form)
                    continue
            elif head in ("quote", "function") and len(d.items) == 2:
                if head == "quote" and spec_dialect:
                    stack.append((d.items[1], True))
                continue
            elif head == "`" and len(d.items) == 2:
                stack.append((d.items[1], True))
                continue
            elif spec_dialect and head == "list" and _is_spec_plist(d.items[1:]):
                form = _spec_form(d, spec_dialect, text, diags, env, evaluate=True)
                if form is not None:
                    tools.append(form)
                continue
        else:
            if head in (",", ",@") and len(d.items) == 2:
                stack.append((d.items[1], False))
                continue
            if spec_dialect and d.tail is None and _is_spec_plist(d.items):
                form = _spec_form(d, spec_dialect, text, diags, env, evaluate=False)
                if form is not None:
                    tools.append(form)
                continue
        if d.tail is not None and isinstance(d.tail, containers):
            stack.append((d.tail, in_quote))
        r = items[::-1]
        if in_quote:
            extend(_quoted_containers(r))
        else:  # outside quoted data only lists are walked (see above)
            extend(_lists(r))
    if defuns and tools:  # what a :function #'NAME of the file takes
        from plistspec.extract.functions import file_functions

        functions = file_functions(datums)
        for t in tools:
            t.functions = functions
    if tools:
        context = FileContext(datums, not alone)
        for t in tools:
            t.file = context
    diags.extend(unread_constructors(datums, text, tools, diags, wrappers))
    return tools, diags


def _lists(r: list[Datum]) -> Iterator[tuple[Datum, bool]]:
    """``(x, False)`` for each list ``x`` of ``r``, in order (at C level)."""
    return zip(compress(r, map(_IS_LIST, map(type, r))), _FALSES, strict=False)


def _quoted_containers(r: list[Datum]) -> Iterator[tuple[Datum, bool]]:
    """``(x, True)`` for each list or vector ``x`` of ``r``, in order (at C level)."""
    return zip(compress(r, map(_IS_CONTAINER, map(type, r))), _TRUES, strict=False)


_IS_LIST = frozenset((List,)).__contains__
_IS_CONTAINER = frozenset((List, Vector)).__contains__
_TRUES = repeat(True)
_FALSES = repeat(False)
_SPECIAL_HEADS = frozenset(
    (*TOOL_HEADS, *WRAPPER_HEADS, DEFTOOL_HEAD, "apply", "quote", "function", "`", "list")
)


def call_form(d: Datum, text: str) -> ToolForm | None:
    """The tool form of ``d`` when it is a plain constructor call (``(gptel-make-tool
    ...)``...), its slots read without the file's constants; else None. For a caller
    that already knows where the call is (``fmt`` reading back what it wrote)."""
    if not isinstance(d, List) or d.tail is not None:
        return None
    h = d.items[0]
    if not isinstance(h, Symbol) or h.name not in TOOL_HEADS:
        return None
    diags: list[Diagnostic] = []
    return _call_form(d, h.name, TOOL_HEADS[h.name], text, diags, Env({}))


def _survey(datums: list[Datum]) -> tuple[str | None, bool, bool]:
    """One walk over everything (quoted data included): the dialect of ``(apply
    #'gptel-make-tool ...)`` if the file hands spec plists to one (gptel wins), whether
    any list starts with ``defconst``/``defvar`` (else the file has no constants) and
    whether any starts with a function or macro definer (else it has no wrappers).

    Hot (every form of a streamed file): the containers among a list's items are picked
    at C level (``compress`` over their exact types: datum classes have no subclasses)."""
    is_container = _CONTAINER_TYPES.__contains__
    stack: list[Datum] = list(compress(datums, map(is_container, map(type, datums))))
    pop = stack.pop
    extend = stack.extend
    surveyed = _SURVEYED
    found: str | None = None
    defines = defuns = False
    while stack:
        d = pop()
        items = d.items
        if type(d) is List:
            h = items[0]
            if type(h) is Symbol and h.name in surveyed:
                name = h.name
                if name in _DEFINERS:
                    defines = True
                elif name in _FUNCTION_DEFINERS:
                    defuns = True
                elif d.tail is None:
                    target = None
                    if name == "apply" and len(items) >= 2:
                        target = function_name(items[1])
                    elif name == "apply-partially" and len(items) >= 3:
                        if function_name(items[1]) == "apply":
                            target = function_name(items[2])
                    if target in TOOL_HEADS:
                        if TOOL_HEADS[target] == "gptel":
                            found = "gptel"
                        found = found or TOOL_HEADS[target]
            tail = d.tail
            if tail is not None and type(tail) in _CONTAINER_TYPES:
                stack.append(tail)
        extend(compress(items, map(is_container, map(type, items))))
    return found, defines, defuns


_CONTAINER_TYPES = frozenset((List, Vector))
_DEFINERS = ("defconst", "defvar")
_FUNCTION_DEFINERS = frozenset((*WRAPPER_DEFINERS, *WRAPPER_MACROS))
_SURVEYED = frozenset(("apply", "apply-partially", *_DEFINERS, *_FUNCTION_DEFINERS))
# the heads that make the tools of one top-level form depend on the other forms
CONTEXT_HEADS = _SURVEYED


def needs_whole_file(datums: list[Datum]) -> bool:
    """True when ``datums`` define constants or wrappers, or hand spec plists to
    ``apply``: then the tools of a form depend on the other forms of the file. When no
    top-level form of a file needs it, :func:`find_tools` of the whole file is the
    concatenation of :func:`find_tools` of each form (what :mod:`plistspec.pipeline.stream`
    relies on)."""
    spec, defines, defuns = _survey(datums)
    return bool(spec or defines or defuns)


def _is_spec_plist(items: list[Datum]) -> bool:
    """A plist with ``:name`` and ``:function`` keys: a tool spec (arg plists lack ``:function``)."""
    if len(items) < 4 or len(items) % 2:
        return False
    keys = set()
    for i in range(0, len(items), 2):
        k = items[i]
        if not (isinstance(k, Symbol) and k.name.startswith(":")):
            return False
        keys.add(k.name)
    return ":name" in keys and ":function" in keys


# --------------------------------------------------------------------------------------
# Building ToolForms


def _pairs(
    items: list[Datum], text: str, diags: list[Diagnostic]
) -> tuple[list[tuple[Symbol, Datum]], Symbol | None]:
    pairs: list[tuple[Symbol, Datum]] = []
    dangling: Symbol | None = None
    i = 0
    n = len(items)
    while i < n:
        k = items[i]
        if not (isinstance(k, Symbol) and k.name.startswith(":")):
            diags.append(
                Diagnostic(
                    "PS102",
                    "warning",
                    f"expected a keyword such as :name here, found {_brief(k, text)}; "
                    "the rest of this form cannot be read statically",
                    k.start,
                    k.end,
                )
            )
            return pairs, None
        if i + 1 >= n:
            dangling = k
            break
        pairs.append((k, items[i + 1]))
        i += 2
    return pairs, dangling


def _brief(d: Datum, text: str, limit: int = 40) -> str:
    s = text[d.start : d.end] if d.start >= 0 else repr(d)
    s = " ".join(s.split())
    return "`" + (s if len(s) <= limit else s[: limit - 1] + "…") + "`"


UNEVALUATED_SLOTS = (":function",)


def _make_slots(
    pairs: list[tuple[Symbol, Datum]],
    text: str,
    diags: list[Diagnostic],
    evaluate: bool,
    env: Env,
) -> list[Slot]:
    slots: list[Slot] = []
    for key, form in pairs:
        if key.name in UNEVALUATED_SLOTS:
            slots.append(Slot(key, form, None, evaluated=evaluate))
            continue
        used: list[str] = []
        if not evaluate:
            if not has_unquote(form):
                slots.append(Slot(key, form, form))
                continue
            # data under a backquote: its unquotes are evaluated by Emacs, never data
            value = backquote(form, env.values, used)
        else:
            value = static_eval(form, env.values, used)
        if isinstance(value, NotStatic):
            diags.append(_not_static_diag(key, env.explain(value), text))
            slots.append(Slot(key, form, None))
        else:
            slots.append(Slot(key, form, value, tuple(dict.fromkeys(used)) if used else ()))
    return slots


# Slots whose value only matters to the library at run time: not reading them statically
# does not stop the tool from being compiled, so it is worth an info, not a warning.
_RUNTIME_ONLY = (":category", ":confirm", ":include", ":async", ":tags")


def _not_static_diag(key: Symbol, ns: NotStatic, text: str) -> Diagnostic:
    where = ns.datum
    if key.name in _RUNTIME_ONLY:
        return Diagnostic(
            "PS103",
            "info",
            f"{key.name} needs evaluation ({ns.reason}): its value is not known statically",
            where.start,
            where.end,
        )
    return Diagnostic(
        "PS101",
        "warning",
        f"cannot read {key.name} statically: {ns.reason} needs evaluation; this tool is skipped",
        where.start,
        where.end,
    )


def _call_form(
    d: List,
    head: str,
    dialect: str,
    text: str,
    diags: list[Diagnostic],
    env: Env,
    skip: int = 0,
    lead: tuple[tuple[Symbol, Datum], ...] = (),
) -> ToolForm:
    """A call's slots; ``lead`` are the pairs a same-file wrapper puts before them."""
    pairs, dangling = _pairs(d.items[1 + skip :], text, diags)
    slots = _make_slots([*lead, *pairs], text, diags, True, env)
    form = ToolForm(head, dialect, d.start, d.end, slots, text, dangling)
    form.datum = d
    return form


def _apply_form(
    d: List, target: str, text: str, diags: list[Diagnostic], env: Env
) -> ToolForm | None:
    """``(apply #'gptel-make-tool [:k v ...] SPEC)``: the last argument is a list of further args."""
    args = d.items[2:]
    used: list[str] = []
    spread = static_eval(args[-1], env.values, used)
    if isinstance(spread, NotStatic):
        if isinstance(args[-1], Symbol) and spread.datum is args[-1]:
            # (apply #'gptel-make-tool spec) inside a loop over specs: the specs themselves
            # are found where they are written.
            return None
        diags.append(
            Diagnostic(
                "PS101",
                "warning",
                f"cannot read the arguments of apply statically: {spread.reason} needs evaluation; "
                "this tool is skipped",
                spread.datum.start,
                spread.datum.end,
            )
        )
        return None
    if used and isinstance(spread, List) and spread.tail is None and _is_spec_plist(spread.items):
        # (apply #'gptel-make-tool my-spec) with my-spec a constant of this file: the spec
        # plist is found where it is written
        return None
    items: list[Datum] = list(args[:-1])
    if isinstance(spread, List) and spread.tail is None:
        items.extend(spread.items)
    elif not is_nil(spread):
        return None
    # Leading explicit args are source forms (evaluate them); the spread list is already a value.
    n_explicit = len(args) - 1
    pairs, dangling = _pairs(items, text, diags)
    slots: list[Slot] = []
    pos = 0
    for key, form in pairs:
        explicit = pos + 1 < n_explicit
        pos += 2
        more = _make_slots([(key, form)], text, diags, explicit, env)
        if not explicit and used:
            for s in more:
                s.via = tuple(dict.fromkeys(used))
        slots.extend(more)
    return ToolForm(f"apply {target}", TOOL_HEADS[target], d.start, d.end, slots, text, dangling)


def _spec_form(
    d: List, dialect: str, text: str, diags: list[Diagnostic], env: Env, *, evaluate: bool
) -> ToolForm | None:
    """A spec plist handed to ``apply``: quoted data (``evaluate`` False) or a ``(list ...)`` call."""
    items = d.items[1:] if evaluate else d.items
    pairs, dangling = _pairs(items, text, diags)
    slots = _make_slots(pairs, text, diags, evaluate, env)
    return ToolForm("spec", dialect, d.start, d.end, slots, text, dangling)


def _deftool_form(d: List, text: str, diags: list[Diagnostic]) -> ToolForm | None:
    """``(llm-tool-collection-deftool NAME (SPECS...) (ARGS...) "DESCRIPTION" BODY...)``.

    The macro builds the quoted spec ``(:name N :description D ,@SPECS :args ARG-SPECS
    :function llm-tc/NAME)``, where each arg ``(sym "doc" . rest)`` becomes
    ``(:name "sym" :description "doc" [:optional t] . rest)``, ``&optional`` marking the
    rest optional, and N defaults to NAME with dashes turned into underscores.
    """
    items = d.items
    if len(items) < 5 or not isinstance(items[1], Symbol):
        return None
    name_sym, specs, args, desc = items[1], items[2], items[3], items[4]
    if not (isinstance(specs, List) or is_nil(specs)) or not (
        isinstance(args, List) or is_nil(args)
    ):
        return None
    spec_items = list(specs.items) if isinstance(specs, List) else []
    pairs, dangling = _pairs(spec_items, text, diags)
    out: list[tuple[Symbol, Datum]] = []
    if not any(k.name == ":name" for k, _ in pairs):
        name = String(name_sym.name.replace("-", "_"), name_sym.start, name_sym.end)
        out.append((Symbol(":name", name_sym.start, name_sym.end), name))
    out.append((Symbol(":description", desc.start, desc.end), desc))
    out.extend(pairs)
    arg_specs: list[Datum] = []
    optional = False
    for a in args.items if isinstance(args, List) else []:
        if isinstance(a, Symbol) and a.name == "&optional":
            optional = True
            continue
        if not (isinstance(a, List) and a.tail is None and len(a.items) >= 2):
            return None
        asym, adoc, rest = a.items[0], a.items[1], a.items[2:]
        if not isinstance(asym, Symbol):
            return None
        aname = String(asym.name.replace("-", "_"), asym.start, asym.end)
        plist: list[Datum] = [Symbol(":name", asym.start, asym.end), aname]
        plist += [Symbol(":description", adoc.start, adoc.end), adoc]
        if optional:
            plist += [Symbol(":optional", a.start, a.start), Symbol("t", a.start, a.start)]
        plist += rest
        arg_specs.append(List(plist, a.start, a.end))
    args_value: Datum = (
        List(arg_specs, args.start, args.end) if arg_specs else Symbol("nil", args.start, args.end)
    )
    out.append((Symbol(":args", args.start, args.end), args_value))
    fn = Symbol("llm-tc/" + name_sym.name, name_sym.start, name_sym.end)
    out.append((Symbol(":function", name_sym.start, name_sym.end), fn))
    slots = [Slot(k, v, None if k.name == ":function" else v, evaluated=False) for k, v in out]
    return ToolForm(DEFTOOL_HEAD, "gptel", d.start, d.end, slots, text, dangling)
