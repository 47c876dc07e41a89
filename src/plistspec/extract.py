"""Find tool definitions in a tree of datums and read their slots statically.

Owns: which forms define tools (``gptel-make-tool``, ``llm-make-tool``, ``make-llm-tool``,
``llm-tool-collection-deftool``, public helpers that hand their plist unchanged to
``gptel-make-tool`` (:data:`WRAPPER_HEADS`), functions and macros of the same file that do
nothing but pass their arguments on to a tool constructor (:func:`file_wrappers`), and spec
plists handed to ``(apply #'gptel-make-tool SPEC)``), at any depth (``setq``, ``use-package``, ``let``...), and the static evaluator
that turns a slot's source form into the value Emacs would compute for it, without
running anything: literals, ``'x``, backquote without (or with static) unquotes,
``(list ...)``, ``(vector ...)``, ``(cons ...)``, ``(append ...)``, ``concat`` /
``format`` / ``string-join`` / ``mapconcat #'identity`` over literal strings, and
constants of the same file (:func:`file_constants`: a ``defconst``/``defvar`` whose
value is itself static, defined once and never assigned, bound or mutated elsewhere in
the file). What needs real evaluation (another variable, another function, an unquote
of one) gives a ``PS101`` warning at its span; that tool is skipped and the others go
on. Tool forms nested inside another tool's slots (a tool built in a ``:function``)
are found too.

Nothing in an input file is ever executed.
"""

from __future__ import annotations

from collections.abc import Iterable

from plistspec.diagnostics import Diagnostic
from plistspec.elisp.datum import (
    Datum,
    Float,
    Integer,
    List,
    String,
    Symbol,
    Vector,
    is_nil,
    quoted,
)

__all__ = [
    "Slot",
    "ToolForm",
    "find_tools",
    "static_eval",
    "file_constants",
    "file_wrappers",
    "NotStatic",
    "TOOL_HEADS",
    "WRAPPER_HEADS",
]


class Slot:
    """One ``:key value`` pair of a tool form.

    ``form`` is the value as written (a datum of the source); ``value`` is its static
    evaluation (a datum standing for the runtime value: ``'(a b)`` gives the list
    ``(a b)``), or None when it cannot be computed statically (or is never computed:
    ``:function`` is kept as source only). ``via`` names the same-file constants the
    value was read through (``:args my-args`` after ``(defconst my-args '(...))``), in
    the order met; empty when the value is written in the form itself.
    """

    __slots__ = ("key", "form", "value", "via")

    def __init__(
        self, key: Symbol, form: Datum, value: Datum | None, via: tuple[str, ...] = ()
    ) -> None:
        self.key = key
        self.form = form
        self.value = value
        self.via = via

    def __repr__(self) -> str:
        return f"Slot({self.key.name}, {self.value!r})"


class ToolForm:
    """A tool definition found in the source.

    ``head`` names the defining form, ``dialect`` the library whose rules apply
    (``"gptel"`` or ``"llm"``), ``start``/``end`` the span of the whole form, ``slots``
    every keyword/value pair in order (repeated keys kept: the libraries use the first),
    ``text`` the whole source text (to slice ``form`` spans from), and ``dangling`` the
    key of an odd trailing keyword without a value, if any.
    """

    __slots__ = ("head", "dialect", "start", "end", "slots", "text", "dangling")

    def __init__(
        self,
        head: str,
        dialect: str,
        start: int,
        end: int,
        slots: list[Slot],
        text: str,
        dangling: Symbol | None = None,
    ) -> None:
        self.head = head
        self.dialect = dialect
        self.start = start
        self.end = end
        self.slots = slots
        self.text = text
        self.dangling = dangling

    def slot(self, key: str) -> Slot | None:
        """The first slot named ``key`` (e.g. ``":args"``), as Emacs's plist lookup finds it."""
        for s in self.slots:
            if s.key.name == key:
                return s
        return None

    def source(self, d: Datum) -> str:
        """The source text of a datum of this form."""
        return self.text[d.start : d.end]

    def __repr__(self) -> str:
        return f"ToolForm({self.head}, {self.slots!r})"


# --------------------------------------------------------------------------------------
# Which forms define tools

TOOL_HEADS = {
    "gptel-make-tool": "gptel",
    # gptel's internal constructor (used by gptel's own tests and some packages): the same
    # struct and the same args preprocessing, only not registered
    "gptel--make-tool": "gptel",
    "llm-make-tool": "llm",
    "make-llm-tool": "llm",
}
DEFTOOL_HEAD = "llm-tool-collection-deftool"

# Public helpers that pass their keyword arguments unchanged to ``(apply #'gptel-make-tool
# ARGS)`` (and to ``llm-make-tool``): head -> (dialect, positional arguments before the
# plist). gptel-tool-library (and its eai- successor) registers into the list variable
# named by its first argument; gptelt-make-tool also registers the tool with an MCP server.
WRAPPER_HEADS = {
    "gptel-tool-library-make-tools": ("gptel", 0),
    "gptel-tool-library-make-tools-and-register": ("gptel", 1),
    "eai-tool-library-make-tools": ("gptel", 0),
    "eai-tool-library-make-tools-and-register": ("gptel", 1),
    "gptelt-make-tool": ("gptel", 0),
}


class NotStatic:
    """Why a form cannot be evaluated statically, and where."""

    __slots__ = ("reason", "datum")

    def __init__(self, reason: str, datum: Datum) -> None:
        self.reason = reason
        self.datum = datum


def _head_name(d: Datum) -> str | None:
    if isinstance(d, List) and d.tail is None and d.items and isinstance(d.items[0], Symbol):
        return d.items[0].name
    return None


def _function_name(d: Datum) -> str | None:
    """``#'f`` or ``'f`` → ``"f"``."""
    inner = quoted(d, "function")
    if inner is None:
        inner = quoted(d, "quote")
    if isinstance(inner, Symbol):
        return inner.name
    return None


def find_tools(
    datums: list[Datum], text: str, *, constants: bool = True
) -> tuple[list[ToolForm], list[Diagnostic]]:
    """Every tool definition in ``datums`` (the top-level forms of ``text``), in source order.

    Returns the tool forms and the diagnostics of what could not be read statically.
    With ``constants`` (the default), a slot may read a constant of the same file (see
    :func:`file_constants`); its :attr:`Slot.via` then names it. A caller that rewrites
    tool forms from their values (and so would inline the constant) passes False or
    leaves alone the forms whose slots have a ``via``.
    """
    tools: list[ToolForm] = []
    diags: list[Diagnostic] = []
    spec_dialect = _apply_dialect(datums)
    wrappers = file_wrappers(datums)
    env = _Env(file_constants(datums, readers=wrappers) if constants else {})
    # Iterative pre-order walk; ``quoted`` is True inside quoted data.
    stack: list[tuple[Datum, bool]] = [(d, False) for d in reversed(datums)]
    while stack:
        d, in_quote = stack.pop()
        if isinstance(d, Vector):
            if in_quote:
                stack.extend((x, True) for x in reversed(d.items))
            continue
        if not isinstance(d, List):
            continue
        head = _head_name(d)
        if not in_quote:
            if head in TOOL_HEADS:
                tools.append(_call_form(d, head, TOOL_HEADS[head], text, diags, env))
                # a tool may be built inside another one's slots (e.g. in its :function)
                stack.extend((x, False) for x in reversed(d.items[1:]))
                continue
            if head in WRAPPER_HEADS and len(d.items) > 1 + WRAPPER_HEADS[head][1]:
                dialect, skip = WRAPPER_HEADS[head]
                tools.append(_call_form(d, head, dialect, text, diags, env, skip))
                stack.extend((x, False) for x in reversed(d.items[1:]))
                continue
            if head in wrappers and len(d.items) > 1:
                dialect, lead = wrappers[head]
                tools.append(_call_form(d, head, dialect, text, diags, env, 0, lead))
                stack.extend((x, False) for x in reversed(d.items[1:]))
                continue
            if head == DEFTOOL_HEAD:
                form = _deftool_form(d, text, diags)
                if form is not None:
                    tools.append(form)
                    stack.extend((x, False) for x in reversed(d.items[5:]))
                    continue
            if head == "apply" and len(d.items) >= 3:
                target = _function_name(d.items[1])
                if target in TOOL_HEADS:
                    form = _apply_form(d, target, text, diags, env)
                    if form is not None:
                        tools.append(form)
                    continue
            if head in ("quote", "function") and len(d.items) == 2:
                if head == "quote":
                    stack.append((d.items[1], True))
                continue
            if head == "`" and len(d.items) == 2:
                stack.append((d.items[1], True))
                continue
            if spec_dialect and head == "list" and _is_spec_plist(d.items[1:]):
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
        children = list(d.items)
        if d.tail is not None:
            children.append(d.tail)
        stack.extend((x, in_quote) for x in reversed(children))
    return tools, diags


def _apply_dialect(datums: list[Datum]) -> str | None:
    """The dialect of ``(apply #'gptel-make-tool ...)`` if the file hands spec plists to one."""
    stack: list[Datum] = list(datums)
    found: str | None = None
    while stack:
        d = stack.pop()
        if isinstance(d, List):
            if _head_name(d) == "apply" and len(d.items) >= 2:
                target = _function_name(d.items[1])
                if target in TOOL_HEADS:
                    if TOOL_HEADS[target] == "gptel":
                        return "gptel"
                    found = found or TOOL_HEADS[target]
            if _head_name(d) == "apply-partially" and len(d.items) >= 3:
                if _function_name(d.items[1]) == "apply":
                    target = _function_name(d.items[2])
                    if target in TOOL_HEADS:
                        if TOOL_HEADS[target] == "gptel":
                            return "gptel"
                        found = found or TOOL_HEADS[target]
            stack.extend(d.items)
            if d.tail is not None:
                stack.append(d.tail)
        elif isinstance(d, Vector):
            stack.extend(d.items)
    return found


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
    env: _Env,
) -> list[Slot]:
    slots: list[Slot] = []
    for key, form in pairs:
        if key.name in UNEVALUATED_SLOTS:
            slots.append(Slot(key, form, None))
            continue
        used: list[str] = []
        if not evaluate:
            if not _has_unquote(form):
                slots.append(Slot(key, form, form))
                continue
            # data under a backquote: its unquotes are evaluated by Emacs, never data
            value = _backquote(form, env.values, used)
        else:
            value = static_eval(form, env.values, used)
        if isinstance(value, NotStatic):
            diags.append(_not_static_diag(key, env.explain(value), text))
            slots.append(Slot(key, form, None))
        else:
            slots.append(Slot(key, form, value, tuple(dict.fromkeys(used))))
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
    env: _Env,
    skip: int = 0,
    lead: tuple[tuple[Symbol, Datum], ...] = (),
) -> ToolForm:
    """A call's slots; ``lead`` are the pairs a same-file wrapper puts before them."""
    pairs, dangling = _pairs(d.items[1 + skip :], text, diags)
    slots = _make_slots([*lead, *pairs], text, diags, True, env)
    return ToolForm(head, dialect, d.start, d.end, slots, text, dangling)


def _apply_form(
    d: List, target: str, text: str, diags: list[Diagnostic], env: _Env
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
    d: List, dialect: str, text: str, diags: list[Diagnostic], env: _Env, *, evaluate: bool
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
    slots = [Slot(k, v, None if k.name == ":function" else v) for k, v in out]
    return ToolForm(DEFTOOL_HEAD, "gptel", d.start, d.end, slots, text, dangling)


# --------------------------------------------------------------------------------------
# Pass-through wrappers of the same file

_WRAPPER_DEFINERS = ("defun", "cl-defun", "defsubst", "cl-defsubst")
_WRAPPER_MACROS = ("defmacro", "cl-defmacro")


def file_wrappers(
    datums: list[Datum],
) -> dict[str, tuple[str, tuple[tuple[Symbol, Datum], ...]]]:
    """The functions and macros of the file that only hand their arguments to a tool constructor.

    Maps each name to ``(dialect, leading pairs)``. Recognised, and nothing else:
    ``(defun W (&rest ARGS) [DOC] [(declare ...)] (apply #'T [:k v ...] ARGS))`` (also
    ``cl-defun``, ``defsubst``) and ``(defmacro W (&rest ARGS) [DOC] [(declare ...)]
    `(T [:k v ...] ,@ARGS))`` (also ``cl-defmacro``, ``&body``), where ``T`` is a tool
    constructor (:data:`TOOL_HEADS`), a public wrapper without positional arguments
    (:data:`WRAPPER_HEADS`) or another such wrapper of the file, and every ``v`` is static
    without any variable. A call ``(W :name ...)`` then means ``(T :k v ... :name ...)``:
    the leading pairs come first, so they win over the same keys of the call. A name
    defined more than once in the file, or already a known head, is not a wrapper.
    """
    found: dict[str, list[tuple[str, tuple[tuple[Symbol, Datum], ...]] | None]] = {}
    stack: list[Datum] = list(datums)
    while stack:
        d = stack.pop()
        if not isinstance(d, List):
            continue
        head = _head_name(d)
        if head in ("quote", "function", "`"):
            continue
        if (
            (head in _WRAPPER_DEFINERS or head in _WRAPPER_MACROS)
            and len(d.items) >= 2
            and isinstance(d.items[1], Symbol)
        ):
            found.setdefault(d.items[1].name, []).append(_wrapper_def(d))
        stack.extend(d.items)
        if d.tail is not None:
            stack.append(d.tail)
    pending = {
        name: v[0]
        for name, v in found.items()
        if len(v) == 1
        and v[0] is not None
        and name not in TOOL_HEADS
        and name not in WRAPPER_HEADS
        and name not in (DEFTOOL_HEAD, "apply")
    }
    out: dict[str, tuple[str, tuple[tuple[Symbol, Datum], ...]]] = {}
    # resolve chains (a wrapper of a wrapper) until nothing changes; cycles stay out
    changed = True
    while changed:
        changed = False
        for name, (target, lead) in list(pending.items()):
            if target in TOOL_HEADS:
                out[name] = (TOOL_HEADS[target], lead)
            elif target in WRAPPER_HEADS and WRAPPER_HEADS[target][1] == 0:
                out[name] = (WRAPPER_HEADS[target][0], lead)
            elif target in out:
                out[name] = (out[target][0], out[target][1] + lead)
            else:
                continue
            del pending[name]
            changed = True
    return out


def _wrapper_def(d: List) -> tuple[str, tuple[tuple[Symbol, Datum], ...]] | None:
    """``(target, leading pairs)`` if the definition ``d`` is a pure pass-through."""
    items = d.items
    macro = items[0].name in _WRAPPER_MACROS  # type: ignore[union-attr]
    if len(items) < 4 or not isinstance(items[2], List) or items[2].tail is not None:
        return None
    params = items[2].items
    rest_words = ("&rest", "&body") if macro else ("&rest",)
    if not (
        len(params) == 2
        and isinstance(params[0], Symbol)
        and params[0].name in rest_words
        and isinstance(params[1], Symbol)
        and not params[1].name.startswith(("&", ":"))
        and params[1].name not in ("nil", "t")
    ):
        return None
    arg = params[1].name
    body = list(items[3:])
    if len(body) > 1 and isinstance(body[0], String):
        body = body[1:]
    while len(body) > 1 and _head_name(body[0]) == "declare":
        body = body[1:]
    if len(body) != 1:
        return None
    form = body[0]
    if macro:
        if _head_name(form) != "`" or len(form.items) != 2:  # type: ignore[union-attr]
            return None
        call = form.items[1]  # type: ignore[union-attr]
        if not isinstance(call, List) or call.tail is not None or len(call.items) < 2:
            return None
        target = call.items[0].name if isinstance(call.items[0], Symbol) else None
        last = call.items[-1]
        if _head_name(last) != ",@" or len(last.items) != 2:  # type: ignore[union-attr]
            return None
        spread = last.items[1]  # type: ignore[union-attr]
        lead = call.items[1:-1]
    else:
        if _head_name(form) != "apply" or len(form.items) < 3:  # type: ignore[union-attr]
            return None
        target = _function_name(form.items[1])  # type: ignore[union-attr]
        spread = form.items[-1]  # type: ignore[union-attr]
        lead = form.items[2:-1]  # type: ignore[union-attr]
    if target is None or not (isinstance(spread, Symbol) and spread.name == arg):
        return None
    if len(lead) % 2:
        return None
    pairs: list[tuple[Symbol, Datum]] = []
    for i in range(0, len(lead), 2):
        k, v = lead[i], lead[i + 1]
        if not (isinstance(k, Symbol) and k.name.startswith(":")):
            return None
        if _has_unquote(v) or isinstance(static_eval(v), NotStatic):
            return None
        pairs.append((k, v))
    return target, tuple(pairs)


def _has_unquote(d: Datum) -> bool:
    stack = [d]
    while stack:
        x = stack.pop()
        if isinstance(x, Vector):
            stack.extend(x.items)
        elif isinstance(x, List):
            if _head_name(x) in (",", ",@"):
                return True
            stack.extend(x.items)
            if x.tail is not None:
                stack.append(x.tail)
    return False


# --------------------------------------------------------------------------------------
# Constants of the same file

_DEFINERS = ("defconst", "defvar")
_BINDING = " binding list"  # the "head" of a list that is not a call

#: call heads whose arguments may name a constant without disqualifying it: the pure
#: functions of the evaluator, the tool constructors and ``apply`` of one
_READERS = frozenset(("apply", DEFTOOL_HEAD, *TOOL_HEADS, *WRAPPER_HEADS))


class _Env:
    """The constants a slot may read, and why the other variables of the file may not."""

    __slots__ = ("values", "refused")

    def __init__(self, found: dict[str, Datum], refused: dict[str, str] | None = None) -> None:
        self.values = found
        self.refused = refused if refused is not None else getattr(found, "refused", {})

    def explain(self, ns: NotStatic) -> NotStatic:
        d = ns.datum
        if isinstance(d, Symbol) and d.name in self.refused:
            return NotStatic(f"the variable `{d.name}' ({self.refused[d.name]})", d)
        return ns


class _Constants(dict):
    """``name -> value`` with a ``refused`` map (name -> why it is not used)."""

    refused: dict[str, str]


def file_constants(datums: list[Datum], readers: Iterable[str] = ()) -> dict[str, Datum]:
    """The variables of the file whose value is known statically, by name.

    A variable qualifies when the file gives it a value exactly once, with
    ``(defconst NAME VALUE ...)`` or ``(defvar NAME VALUE ...)`` where VALUE is static
    (it may read constants defined before it), and every other mention of NAME in
    evaluated code is an argument of a pure function the evaluator knows, of a tool
    constructor or of ``apply``: so nothing in the file assigns, binds, or mutates it
    (``setq``, ``let``, ``push``, ``plist-put``, a lambda list... all disqualify).
    ``readers`` names more such heads (the file's own wrappers, :func:`file_wrappers`).
    Quoted data does not count as a mention. ``defvar`` keeps a value set before the
    file is loaded; the file's own value is the one assumed. The result also has a
    ``refused`` attribute mapping the other defined names to why they are not used.
    """
    reading = _READERS.union(readers)
    defs: dict[str, list[tuple[int, Datum]]] = {}
    bad: dict[str, str] = {}
    # (datum, head of the enclosing call or None, index in it, in_quote)
    stack: list[tuple[Datum, str | None, int, bool]] = [
        (d, None, 0, False) for d in reversed(datums)
    ]
    while stack:
        d, parent, index, in_quote = stack.pop()
        if isinstance(d, Symbol):
            if not in_quote and parent is not None:
                name = d.name
                if parent in _DEFINERS and index == 1:
                    continue
                if index == 0 or not (
                    parent in _FUNCTIONS or parent in reading or parent in (",", ",@")
                ):
                    if index == 0 or parent == _BINDING:
                        why = "it is bound or called elsewhere in this file"
                    else:
                        why = f"`{parent}' uses it elsewhere in this file"
                    bad.setdefault(name, why)
            continue
        if isinstance(d, Vector):
            if in_quote:
                stack.extend((x, None, 0, True) for x in reversed(d.items))
            continue
        if not isinstance(d, List):
            continue
        head = _head_name(d)
        if in_quote:
            if head in (",", ",@") and len(d.items) == 2:
                stack.append((d.items[1], head, 1, False))
                continue
            kids = list(d.items) + ([d.tail] if d.tail is not None else [])
            stack.extend((x, None, 0, True) for x in reversed(kids))
            continue
        if head in ("quote", "function") and len(d.items) == 2:
            if head == "quote":
                stack.append((d.items[1], None, 0, True))
            continue
        if head == "`" and len(d.items) == 2:
            stack.append((d.items[1], None, 0, True))
            continue
        if head in _DEFINERS and len(d.items) >= 2 and isinstance(d.items[1], Symbol):
            if len(d.items) >= 3:
                defs.setdefault(d.items[1].name, []).append((d.start, d.items[2]))
        # a list without a function at its head (a binding list, a lambda list...) is
        # not a call: a name in it is bound, not read
        call = head if head is not None else _BINDING
        if d.tail is not None:
            stack.append((d.tail, call, len(d.items), False))
        stack.extend((x, call, i, False) for i, x in reversed(list(enumerate(d.items))))
    out = _Constants()
    out.refused = {}
    order = sorted((v[0][0], name, v[0][1]) for name, v in defs.items() if len(v) == 1)
    for name, v in defs.items():
        if len(v) > 1:
            out.refused[name] = "it is defined more than once in this file"
    for _, name, form in order:
        if name in bad:
            out.refused[name] = bad[name]
            continue
        value = static_eval(form, out)
        if isinstance(value, NotStatic):
            out.refused[name] = "its value is not static: " + value.reason
            continue
        out[name] = value
    return out


# --------------------------------------------------------------------------------------
# The static evaluator

_SELF_EVALUATING = (String, Integer, Float, Vector)


def static_eval(
    form: Datum, env: dict[str, Datum] | None = None, used: list[str] | None = None
) -> Datum | NotStatic:
    """The value Emacs would compute for ``form``, if it can be known without running code.

    Iterative (forms may nest arbitrarily deep). Values built here (by ``list``,
    ``concat``...) carry the span of the form that built them. ``env`` maps the names of
    variables whose values are known (see :func:`file_constants`) to those values;
    each one read is appended to ``used``.
    """
    # Work items: ("eval", form) pushes a result; ("call", form, fn, n) pops n results.
    results: list[Datum | NotStatic] = []
    work: list[tuple] = [("eval", form)]
    while work:
        item = work.pop()
        if item[0] == "eval":
            f = item[1]
            if isinstance(f, _SELF_EVALUATING):
                results.append(f)
            elif isinstance(f, Symbol):
                if f.name in ("nil", "t") or f.name.startswith(":"):
                    results.append(f)
                elif env is not None and f.name in env:
                    results.append(env[f.name])
                    if used is not None:
                        used.append(f.name)
                else:
                    results.append(NotStatic(f"the variable `{f.name}'", f))
            elif isinstance(f, List):
                head = _head_name(f)
                if head is None:
                    results.append(NotStatic("a form that is not a function call", f))
                elif head == "quote" and len(f.items) == 2:
                    results.append(f.items[1])
                elif head == "function" and len(f.items) == 2:
                    results.append(
                        f.items[1] if isinstance(f.items[1], Symbol) else NotStatic("a closure", f)
                    )
                elif head == "`" and len(f.items) == 2:
                    results.append(_backquote(f.items[1], env, used))
                elif head in _FUNCTIONS:
                    args = f.items[1:]
                    work.append(("call", f, head, len(args)))
                    work.extend(("eval", a) for a in reversed(args))
                else:
                    results.append(NotStatic(f"a call of `{head}'", f))
            else:  # pragma: no cover - every datum kind is handled above
                results.append(NotStatic("an unknown form", f))
        else:
            _, f, head, n = item
            args = results[len(results) - n :] if n else []
            del results[len(results) - n :]
            bad = next((a for a in args if isinstance(a, NotStatic)), None)
            results.append(bad if bad is not None else _FUNCTIONS[head](f, args))
    return results[0]


def _backquote(
    template: Datum, env: dict[str, Datum] | None = None, used: list[str] | None = None
) -> Datum | NotStatic:
    """Evaluate a backquote template: unquoted parts must themselves be static."""
    # Post-order rebuild with an explicit stack of (node, children-done) frames.
    out: list[Datum | NotStatic | tuple[str, Datum | NotStatic]] = []
    work: list[tuple[str, Datum, int]] = [("visit", template, 0)]
    while work:
        op, node, n = work.pop()
        if op == "visit":
            head = _head_name(node)
            if head == "," and len(node.items) == 2:
                out.append(static_eval(node.items[1], env, used))
            elif head == ",@" and len(node.items) == 2:
                out.append(("splice", static_eval(node.items[1], env, used)))
            elif head == "`":
                out.append(NotStatic("a nested backquote", node))
            elif isinstance(node, List):
                kids = list(node.items)
                work.append(("list", node, len(kids)))
                if node.tail is not None:
                    work.append(("tail", node.tail, 0))
                work.extend(("visit", k, 0) for k in reversed(kids))
            elif isinstance(node, Vector):
                kids = list(node.items)
                work.append(("vector", node, len(kids)))
                work.extend(("visit", k, 0) for k in reversed(kids))
            else:
                out.append(node)
        elif op == "tail":
            # a dotted tail of a template is rare and shallow: evaluate it as its own template
            out.append(("tail", _backquote(node, env, used)))
        else:
            has_tail = op == "list" and node.tail is not None
            take = n + (1 if has_tail else 0)
            parts = out[len(out) - take :] if take else []
            del out[len(out) - take :]
            tail_part = None
            if has_tail:
                # children are visited before the tail, so the tail's result comes last
                tail_part = parts[-1]
                parts = parts[:-1]
            items: list[Datum] = []
            bad: NotStatic | None = None
            for p in parts:
                if isinstance(p, tuple):
                    v = p[1]
                    if isinstance(v, NotStatic):
                        bad = bad or v
                    elif isinstance(v, List) and v.tail is None:
                        items.extend(v.items)
                    elif not is_nil(v):
                        bad = bad or NotStatic("a ,@ splice of something that is not a list", node)
                elif isinstance(p, NotStatic):
                    bad = bad or p
                else:
                    items.append(p)
            tail: Datum | None = None
            if tail_part is not None:
                tv = tail_part[1]
                if isinstance(tv, NotStatic):
                    bad = bad or tv
                else:
                    tail = tv
            if bad is not None:
                out.append(bad)
            elif op == "vector":
                out.append(Vector(items, node.start, node.end))
            elif not items and tail is None:
                out.append(Symbol("nil", node.start, node.end))
            else:
                out.append(List(items, node.start, node.end, tail=None if is_nil(tail) else tail))
    result = out[0]
    if isinstance(result, tuple):
        return NotStatic("a ,@ splice at the top of a backquote", template)
    return result


# --- the functions the evaluator knows (all pure, on static values) ---------------------


def _fn_list(f: List, args: list[Datum]) -> Datum:
    if not args:
        return Symbol("nil", f.start, f.end)
    return List(list(args), f.start, f.end)


def _fn_vector(f: List, args: list[Datum]) -> Datum:
    return Vector(list(args), f.start, f.end)


def _fn_cons(f: List, args: list[Datum]) -> Datum | NotStatic:
    if len(args) != 2:
        return NotStatic("`cons' with other than two arguments", f)
    car, cdr = args
    if is_nil(cdr):
        return List([car], f.start, f.end)
    if isinstance(cdr, List):
        return List([car, *cdr.items], f.start, f.end, tail=cdr.tail)
    return List([car], f.start, f.end, tail=cdr)


def _fn_append(f: List, args: list[Datum]) -> Datum | NotStatic:
    items: list[Datum] = []
    tail: Datum | None = None
    for i, a in enumerate(args):
        last = i == len(args) - 1
        if is_nil(a):
            continue
        if isinstance(a, (List, Vector)) and (not isinstance(a, List) or a.tail is None):
            items.extend(a.items)
        elif last:
            tail = a
        else:
            return NotStatic("`append' of something that is not a list", f)
    if not items:
        return tail if tail is not None else Symbol("nil", f.start, f.end)
    return List(items, f.start, f.end, tail=tail)


def _fn_concat(f: List, args: list[Datum]) -> Datum | NotStatic:
    parts: list[str] = []
    for a in args:
        if isinstance(a, String):
            parts.append(a.value)
        elif is_nil(a):
            continue
        else:
            return NotStatic("`concat' of something that is not a string", f)
    return String("".join(parts), f.start, f.end)


def _princ(v: Datum) -> str | None:
    if isinstance(v, String):
        return v.value
    if isinstance(v, Integer):
        return str(v.value)
    if isinstance(v, Symbol):
        return v.name
    return None


def _fn_format(f: List, args: list[Datum]) -> Datum | NotStatic:
    if not args or not isinstance(args[0], String):
        return NotStatic("`format' without a literal format string", f)
    fmt = args[0].value
    rest = list(args[1:])
    out: list[str] = []
    i = 0
    n = len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            j = fmt.find("%", i)
            j = n if j < 0 else j
            out.append(fmt[i:j])
            i = j
            continue
        if i + 1 >= n:
            return NotStatic("`format' string ending in %", f)
        spec = fmt[i + 1]
        i += 2
        if spec == "%":
            out.append("%")
            continue
        if not rest:
            return NotStatic("`format' with too few arguments", f)
        v = rest.pop(0)
        if spec == "s":
            s = _princ(v)
            if s is None:
                return NotStatic("`format' of a value other than a string, number or symbol", f)
            out.append(s)
        elif spec == "d" and isinstance(v, Integer):
            out.append(str(v.value))
        else:
            return NotStatic(f"`format' directive %{spec}", f)
    return String("".join(out), f.start, f.end)


def _fn_string_join(f: List, args: list[Datum]) -> Datum | NotStatic:
    if not args or len(args) > 2:
        return NotStatic("`string-join' with unexpected arguments", f)
    seq = args[0]
    sep = args[1] if len(args) == 2 else Symbol("nil")
    if is_nil(sep):
        sep_s = ""
    elif isinstance(sep, String):
        sep_s = sep.value
    else:
        return NotStatic("`string-join' with a separator that is not a string", f)
    items = [] if is_nil(seq) else list(seq.items) if isinstance(seq, (List, Vector)) else None
    if items is None or not all(isinstance(x, String) for x in items):
        return NotStatic("`string-join' of something that is not a list of strings", f)
    return String(sep_s.join(x.value for x in items), f.start, f.end)  # type: ignore[attr-defined]


def _fn_mapconcat(f: List, args: list[Datum]) -> Datum | NotStatic:
    """``(mapconcat #'identity SEQ [SEP])`` over strings (SEP optional since Emacs 29)."""
    if len(args) not in (2, 3):
        return NotStatic("`mapconcat' with unexpected arguments", f)
    fn = args[0]
    if not (isinstance(fn, Symbol) and fn.name == "identity"):
        return NotStatic("`mapconcat' of a function other than `identity'", f)
    return _fn_string_join(f, args[1:])


def _fn_symbol_name(f: List, args: list[Datum]) -> Datum | NotStatic:
    if len(args) != 1 or not isinstance(args[0], Symbol):
        return NotStatic("`symbol-name' of something that is not a symbol", f)
    return String(args[0].name, f.start, f.end)


def _fn_identity(f: List, args: list[Datum]) -> Datum | NotStatic:
    if len(args) != 1:
        return NotStatic(f"`{_head_name(f)}' with other than one argument", f)
    return args[0]


_FUNCTIONS = {
    "list": _fn_list,
    "vector": _fn_vector,
    "cons": _fn_cons,
    "append": _fn_append,
    "concat": _fn_concat,
    "format": _fn_format,
    "string-join": _fn_string_join,
    "mapconcat": _fn_mapconcat,
    "symbol-name": _fn_symbol_name,
    "purecopy": _fn_identity,
    "identity": _fn_identity,
}
