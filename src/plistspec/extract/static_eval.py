"""The static evaluator: the value Emacs would compute for a form, without running anything.

Owns: :func:`static_eval` and backquote templates (:func:`backquote`): literals, ``'x``,
backquote without (or with static) unquotes, ``(list ...)``, ``(vector ...)``,
``(cons ...)``, ``(append ...)``, ``concat`` / ``format`` / ``string-join`` /
``mapconcat #'identity`` over literal strings, ``symbol-name``, ``identity`` /
``purecopy`` (:data:`FUNCTIONS`), and variables whose values an environment gives (the
file's constants, :mod:`.constants`). Anything else is a :class:`~.forms.NotStatic`
naming what needs evaluation and where. Iterative: forms may nest arbitrarily deep.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector, is_nil
from plistspec.extract.forms import NotStatic, head_name

__all__ = ["static_eval", "backquote", "FUNCTIONS"]

_SELF_EVALUATING = (String, Integer, Float, Vector)
_SELF_EVALUATING_TYPES = frozenset(_SELF_EVALUATING)  # datum classes have no subclasses


def _quick(form: Datum) -> Datum | None:
    """The value of a literal, a keyword, nil, t or a quoted datum; else None."""
    t = type(form)
    if t in _SELF_EVALUATING_TYPES:
        return form
    if t is Symbol:
        if form.name in ("nil", "t") or form.name.startswith(":"):  # type: ignore[attr-defined]
            return form
    elif t is List and len(form.items) == 2 and form.tail is None:  # type: ignore[attr-defined]
        h = form.items[0]  # type: ignore[attr-defined]
        if type(h) is Symbol and h.name == "quote":
            return form.items[1]  # type: ignore[attr-defined]
    return None


def static_eval(
    form: Datum, env: dict[str, Datum] | None = None, used: list[str] | None = None
) -> Datum | NotStatic:
    """The value Emacs would compute for ``form``, if it can be known without running code.

    Iterative (forms may nest arbitrarily deep). Values built here (by ``list``,
    ``concat``...) carry the span of the form that built them. ``env`` maps the names of
    variables whose values are known (see :func:`file_constants`) to those values;
    each one read is appended to ``used``.
    """
    # The common slot values first, as the loop below gives them: a literal, a keyword,
    # nil, t, a quoted datum, or a call of one of FUNCTIONS on such values only
    # (``:args (list '(...) '(...))``).
    v = _quick(form)
    if v is not None:
        return v
    if type(form) is List and form.tail is None and form.items:  # type: ignore[attr-defined]
        h = form.items[0]  # type: ignore[attr-defined]
        if type(h) is Symbol and h.name in FUNCTIONS:
            args = []
            for a in form.items[1:]:  # type: ignore[attr-defined]
                v = _quick(a)
                if v is None:
                    break
                args.append(v)
            else:
                return FUNCTIONS[h.name](form, args)
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
                head = head_name(f)
                if head is None:
                    results.append(NotStatic("a form that is not a function call", f))
                elif head == "quote" and len(f.items) == 2:
                    results.append(f.items[1])
                elif head == "function" and len(f.items) == 2:
                    results.append(
                        f.items[1] if isinstance(f.items[1], Symbol) else NotStatic("a closure", f)
                    )
                elif head == "`" and len(f.items) == 2:
                    results.append(backquote(f.items[1], env, used))
                elif head in FUNCTIONS:
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
            results.append(bad if bad is not None else FUNCTIONS[head](f, args))
    return results[0]


def backquote(
    template: Datum, env: dict[str, Datum] | None = None, used: list[str] | None = None
) -> Datum | NotStatic:
    """Evaluate a backquote template: unquoted parts must themselves be static."""
    # Post-order rebuild with an explicit stack of (node, children-done) frames.
    out: list[Datum | NotStatic | tuple[str, Datum | NotStatic]] = []
    work: list[tuple[str, Datum, int]] = [("visit", template, 0)]
    while work:
        op, node, n = work.pop()
        if op == "visit":
            head = head_name(node)
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
            out.append(("tail", backquote(node, env, used)))
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
        return NotStatic(f"`{head_name(f)}' with other than one argument", f)
    return args[0]


FUNCTIONS = {
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
