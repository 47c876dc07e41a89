"""The one JSON printer of plistspec's output (semantics.md §6.3).

Owns: :func:`dumps`, ``json.dumps(value, indent=2, ensure_ascii=False)`` plus a final
newline: the form of every file in ``expected/``. The same bytes are written by a
direct walk (the standard library's indenting encoder is pure Python and generator
based, about twice as slow on a 10 MB output); a value nested deeper than Python recurses
is written the same way through an explicit stack, and anything else it does not know (a
dict subclass, a cycle) goes to ``json.dumps`` itself.
"""

from __future__ import annotations

from typing import Any

try:  # json.encoder's own string encoder, the C function; importing the json package
    # (decoder, scanner, encoder) would cost every command a millisecond of start-up
    from _json import encode_basestring as _string
except ImportError:  # pragma: no cover - a Python without the C accelerator
    from json.encoder import encode_basestring as _string

__all__ = ["dumps", "dumps_nested"]

_INF = float("inf")
_SCALARS = {None: "null", True: "true", False: "false"}  # looked up for bool and None only


def _float(x: float) -> str:
    if x != x:
        return "NaN"
    if x == _INF:
        return "Infinity"
    if x == -_INF:
        return "-Infinity"
    return float.__repr__(x)


def _key(k: Any) -> str:
    if isinstance(k, str):
        return _string(k)
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, float):
        return '"' + _float(k) + '"'
    if isinstance(k, int):
        return '"' + int.__repr__(k) + '"'
    raise TypeError(k)


def _indented(value: Any, indent: str = "") -> str:
    out: list[str] = []
    app = out.append
    string = _string
    scalars = _SCALARS

    def enc(v: Any, ind: str) -> None:
        t = type(v)
        if t is str:
            app(string(v))
        elif t is dict:
            if not v:
                app("{}")
                return
            ind2 = ind + "  "
            lead = "{\n" + ind2  # what goes before the next key: fewer, longer chunks
            sep = ",\n" + ind2
            for k, x in v.items():
                key = string(k) if type(k) is str else _key(k)
                tx = type(x)
                if tx is str:
                    app(f"{lead}{key}: {string(x)}")
                elif tx is dict or tx is list:
                    app(f"{lead}{key}: ")
                    enc(x, ind2)
                else:
                    s = scalars.get(x) if tx is bool or x is None else None
                    if s is None:
                        app(f"{lead}{key}: ")
                        enc(x, ind2)
                    else:
                        app(f"{lead}{key}: {s}")
                lead = sep
            app("\n" + ind + "}")
        elif t is list:
            if not v:
                app("[]")
                return
            ind2 = ind + "  "
            lead = "[\n" + ind2
            sep = ",\n" + ind2
            for x in v:
                if type(x) is str:
                    app(f"{lead}{string(x)}")
                else:
                    app(lead)
                    enc(x, ind2)
                lead = sep
            app("\n" + ind + "]")
        elif v is None:
            app("null")
        elif v is True:
            app("true")
        elif v is False:
            app("false")
        elif t is int:
            app(int.__repr__(v))
        elif t is float:
            app(_float(v))
        else:
            raise TypeError(t)

    try:
        enc(value, indent)
    finally:
        # ``enc`` refers to itself: without this the pieces would wait for the cyclic
        # garbage collector, which a run pauses (many small dumps would pile up)
        enc = None  # type: ignore[assignment]  # noqa: F841
    if not indent:
        app("\n")  # joined here: adding it to the result would copy the whole text once more
    return "".join(out)


def _scalar(v: Any) -> str | None:
    """The text of a value that is not a non-empty container, else None."""
    t = type(v)
    if t is str:
        return _string(v)
    if t is dict or t is list:
        return None if v else ("{}" if t is dict else "[]")
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if t is int:
        return int.__repr__(v)
    if t is float:
        return _float(v)
    raise TypeError(t)


#: past this many levels a line is indented no further: indentation that grows with the
#: depth would make the text of a value nested N deep grow as N² (a 40 000-deep schema
#: would print 3 GB of spaces); Python's own ``json.dumps(indent=2)`` cannot print such
#: values at all (RecursionError)
MAX_INDENT_DEPTH = 256


def _indented_deep(value: Any, indent: str = "") -> str:
    """:func:`_indented` through an explicit stack: for values nested deeper than Python
    recurses (tool JSON lowered as it came, at any depth). Lines deeper than
    :data:`MAX_INDENT_DEPTH` levels keep that level's indentation (linear output)."""
    cap = len(indent) + 2 * MAX_INDENT_DEPTH
    out: list[str] = []
    app = out.append
    # frames: [the (key text, value) pairs left, the inner indent, the closing text,
    # nothing written yet, the opening bracket]
    stack: list[list[Any]] = []

    def push(v: Any, ind: str) -> None:
        inner = ind + "  " if len(ind) < cap else ind
        if type(v) is dict:
            pairs = iter(
                [((_string(k) if type(k) is str else _key(k)) + ": ", x) for k, x in v.items()]
            )
            stack.append([pairs, inner, "\n" + ind + "}", True, "{"])
        else:
            stack.append([iter([("", x) for x in v]), inner, "\n" + ind + "]", True, "["])

    s = _scalar(value)
    if s is not None:
        app(s)
    else:
        push(value, indent)
    while stack:
        fr = stack[-1]
        item = next(fr[0], None)
        if item is None:
            app(fr[2])
            stack.pop()
            continue
        prefix, x = item
        app((fr[4] + "\n" if fr[3] else ",\n") + fr[1] + prefix)
        fr[3] = False
        s = _scalar(x)
        if s is not None:
            app(s)
        else:
            push(x, fr[1])
    if not indent:
        app("\n")
    return "".join(out)


def _no_surrogates(out: str) -> str:
    """``out`` with each lone surrogate (a raw byte of a file that is not UTF-8, as the
    reader holds it) written as a ``\\udcff`` escape: the same JSON value, valid UTF-8."""
    if out.isascii():
        return out
    import re

    surrogate = re.compile("[\ud800-\udfff]")
    if surrogate.search(out) is None:
        return out
    return surrogate.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


def dumps(value: Any) -> str:
    """``value`` printed as the expected files are: indent 2, non-ASCII raw (but lone
    surrogates, escaped), final newline."""
    return _no_surrogates(_dumps(value))


def _dumps(value: Any) -> str:
    try:
        return _indented(value)
    except RecursionError:
        return _indented_deep(value)
    except TypeError:
        import json

        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def dumps_nested(value: Any, indent: str) -> str:
    """``value`` as :func:`dumps` prints it nested at ``indent`` (an item of an array at
    that depth): no final newline, and every line after the first starts with ``indent``
    more, i.e. ``dumps(value)[:-1].replace("\\n", "\\n" + indent)`` (a JSON string holds no
    newline) without the two copies."""
    if not indent:
        return dumps(value)[:-1]
    try:
        out = _indented(value, indent)
    except RecursionError:
        out = _indented_deep(value, indent)
    except TypeError:
        import json

        out = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
    return _no_surrogates(out)
