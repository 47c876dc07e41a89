"""The metadata of plistspec's IR read back from JSON: Elisp slot texts made safe to write.

Owns: :func:`check_metadata`. The IR carries the source of the non-schema slots
(``metadata.slots[].key/.text``, ``metadata.function``) so that ``from-json`` can write them
back. JSON can come from anywhere, so none of it is pasted: each text is read with the
project's reader and must be exactly one datum (each key exactly one keyword), and is
written again by the printer (:func:`reprint`, which keeps the line breaks and indentation
between tokens but no comments). Then what the datum would do when the generated file is
loaded decides whether it is written:

* ``:function``: what :func:`plistspec.elisp.loadsafe.function_problem` accepts: a
  symbol, ``'SYMBOL``, ``#'SYMBOL``, or a lambda made only of forms whose evaluation
  is known (an allow-list: special forms and vetted macros with their shapes, functions
  of Emacs 28.2, gptel and llm, quoted data; ``grammars/elisp-load-safety.json``).
  Anything else could run code when the generated file is loaded or byte-compiled (a
  macro expanded at load time evaluating its arguments, a call of an unknown function
  that is a macro in the user's Emacs): a stub is written instead, with a PS516 warning
  naming what was dropped. ``nil``, ``t``, a keyword, a string or a number names no
  function at all: an error (PS514).
* every other slot (``:confirm``, ``:include``, ``:category``, ``:async``, unknown keys): only
  inert values: self-evaluating literals (strings, numbers, keywords, ``t``/``nil``,
  vectors), symbols (a variable's value: no code runs) and quoted data ``'X`` / ``#'SYMBOL``.

``trust=True`` (``from-json --trust-functions``) writes every slot that is exactly one datum,
code included. A lambda that passes the check is still code the user will run when the
model calls the tool: the JSON's author wrote it.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic

__all__ = ["check_metadata", "reprint"]

_SHORT = {"quote": "'", "function": "#'", "`": "`", ",": ",", ",@": ",@"}
_RESERVED = frozenset({":name", ":description", ":args"})


def _diag(code: str, severity: str, message: str) -> Diagnostic:
    return Diagnostic(code, severity, message)  # type: ignore[arg-type]


def _width(ws: str) -> int:
    col = 0
    for c in ws:
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
    return col


def reprint(d: Any, text: str) -> tuple[str, bool]:
    """``d`` (read from ``text``) printed again by the printer, token by token: where the
    source broke the line between two tokens the new text does too, at the same column.
    Returns ``(text, a comment was dropped)``. Raises ValueError for an unprintable
    string or symbol (a character Emacs has but the printer cannot write)."""
    from plistspec.elisp.datum import List, Symbol, Vector
    from plistspec.elisp.printer import BIDI, print_datum

    out: list[str] = []
    dropped = False
    prev = [d.start]  # end of the last token written, in the source
    # work items: ("d", datum, first-in-container) or ("s", text, source end)
    work: list[tuple] = [("d", d, True)]
    while work:
        kind, x, flag = work.pop()
        if kind == "s":
            if x in (")", "]") and 0 <= prev[0] <= flag - 1 and ";" in text[prev[0] : flag - 1]:
                dropped = True
            out.append(x)
            if flag >= 0:
                prev[0] = flag
            continue
        start = x.start
        if start >= 0 and prev[0] >= 0 and start >= prev[0]:
            gap = text[prev[0] : start]
            if ";" in gap:
                dropped = True
            if "\n" in gap:
                out.append("\n" + " " * _width(gap[gap.rindex("\n") + 1 :]))
            elif not flag or gap:
                out.append(" ")
        elif not flag:
            out.append(" ")
        t = type(x)
        if t is List:
            short = None
            if x.tail is None and len(x.items) == 2 and type(x.items[0]) is Symbol:
                short = _SHORT.get(x.items[0].name)
            if short is not None:
                arg = x.items[1]
                if short == "," and type(arg) is Symbol and arg.name.startswith("@"):
                    short = ", "
                out.append(short)
                prev[0] = -1  # the argument follows the prefix directly
                work.append(("d", arg, True))
                continue
            out.append("(")
            prev[0] = start + 1 if start >= 0 else -1
            work.append(("s", ")", x.end if start >= 0 else -1))
            if x.tail is not None:
                work.append(("d", x.tail, False))
                work.append(("s", " .", -1))
            for k in range(len(x.items) - 1, -1, -1):
                work.append(("d", x.items[k], k == 0))
        elif t is Vector:
            out.append("[")
            prev[0] = start + 1 if start >= 0 else -1
            work.append(("s", "]", x.end if start >= 0 else -1))
            for k in range(len(x.items) - 1, -1, -1):
                work.append(("d", x.items[k], k == 0))
        else:
            if t is Symbol and BIDI.search(x.name):
                raise ValueError(
                    "a symbol holds a bidirectional control character (such as U+202E), "
                    "which Emacs Lisp cannot write visibly in a symbol"
                )
            empty = t is Symbol and x.name == "nil" and text[start : start + 1] == "("
            out.append("()" if empty else print_datum(x))  # `()` reads as nil: kept as written
            prev[0] = x.end if start >= 0 else -1
    return "".join(out), dropped


def _not_a_function(d: Any) -> str | None:
    """Why ``d`` (a ``:function`` value) names no function at all, or None: ``nil``, ``t``,
    a keyword (bare, quoted or ``#'``), a string, a number, a vector."""
    from plistspec.elisp.datum import List, Symbol
    from plistspec.elisp.loadsafe import NOT_A_FUNCTION

    x = d
    if (
        type(x) is List
        and x.tail is None
        and len(x.items) == 2
        and type(x.items[0]) is Symbol
        and x.items[0].name in ("quote", "function")
    ):
        x = x.items[1]
    if type(x) is Symbol:
        if x.name in NOT_A_FUNCTION:
            return f"`{x.name}' names no function"
        if x.name.startswith(":"):
            return "a keyword names no function"
        return None
    if type(x) is List:
        return None
    return f"a {type(x).__name__.lower()} is not a function"


def _excerpt(text: str) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= 60 else one[:57] + "...")


def _read_one(text: str) -> tuple[Any, str | None]:
    """The single datum ``text`` holds, or ``(None, why not)``."""
    from plistspec.core.diagnostics import ReadError
    from plistspec.elisp.reader import read_all

    try:
        datums = read_all(text)
    except ReadError as e:
        return None, f"it is not valid Emacs Lisp ({e.message})"
    except (ValueError, RecursionError, MemoryError) as e:
        return None, f"it cannot be read ({type(e).__name__})"
    if len(datums) != 1:
        return None, f"it holds {len(datums)} data where one value belongs"
    return datums[0], None


def _slot_text(
    key: str, text: str, where: str, label: str, trust: bool, diags: list[Diagnostic]
) -> str | None:
    """The printer's text for one slot value, or None (dropped, with a warning)."""
    d, why = _read_one(text)
    if d is None:
        diags.append(
            _diag(
                "PS515",
                "warning",
                f"tool {label}: dropped {key} {_excerpt(text)} (at {where}): {why}",
            )
        )
        return None
    if key == ":function":
        why = _not_a_function(d)
        if why is not None:
            diags.append(
                _diag(
                    "PS525",
                    "error",
                    f"tool {label}: {key} {_excerpt(text)} (at {where}) is not a function: "
                    f"{why}; write a symbol, #'SYMBOL or a (lambda ...), or leave it out",
                )
            )
            return None
    if not trust:
        from plistspec.elisp.loadsafe import function_problem, value_problem

        problem = function_problem(d) if key == ":function" else value_problem(d)
        if problem is not None:
            instead = "; a stub was written instead" if key == ":function" else ""
            diags.append(
                _diag(
                    "PS516",
                    "warning",
                    f"tool {label}: dropped {key} {_excerpt(text)} (at {where}): it could run "
                    f"code when the generated file is loaded: {problem}{instead}. Pass "
                    "--trust-functions to write it if you trust this JSON",
                )
            )
            return None
    try:
        new, dropped = reprint(d, text)
    except ValueError as e:
        diags.append(_diag("PS515", "warning", f"tool {label}: dropped {key} (at {where}): {e}"))
        return None
    if dropped:
        diags.append(
            _diag(
                "PS517",
                "info",
                f"tool {label}: the comments inside {key} (at {where}) were not kept: slot "
                "texts from JSON are written again by the printer",
            )
        )
    return new


def _key(raw: Any) -> str | None:
    """The keyword ``raw`` names (read with the reader), or None."""
    if not isinstance(raw, str):
        return None
    from plistspec.elisp.datum import Symbol

    d, _ = _read_one(raw)
    if type(d) is not Symbol or not d.name.startswith(":") or len(d.name) < 2:
        return None
    if not d.name.isprintable():  # a bidi control or raw byte: no visible way to write it
        return None
    return d.name


def check_metadata(
    meta: dict, ptr: str, label: str, diags: list[Diagnostic], trust: bool = False
) -> dict:
    """``meta`` (an IR tool's metadata from JSON at ``ptr``) with every slot text read,
    checked and printed again; what cannot be written safely is dropped with a warning.
    Malformed ``metadata.slots`` members are errors (PS514)."""
    out = dict(meta)
    fn = meta.get("function")
    if fn is not None and not isinstance(fn, str):
        diags.append(
            _diag(
                "PS514",
                "error",
                f"tool {label}: metadata.function (at {ptr}/function) "
                "must be a string of Emacs Lisp or null",
            )
        )
    elif isinstance(fn, str):
        out["function"] = _slot_text(":function", fn, f"{ptr}/function", label, trust, diags)
        if out["function"] is None:
            out["function_dropped"] = True
    slots = meta.get("slots")
    if slots is None or "slots" not in meta:
        out.pop("slots", None)
        return out
    if not isinstance(slots, list):
        diags.append(
            _diag(
                "PS514", "error", f"tool {label}: metadata.slots (at {ptr}/slots) must be an array"
            )
        )
        return out
    new: list[dict] = []
    for i, s in enumerate(slots):
        where = f"{ptr}/slots/{i}"
        if not (
            isinstance(s, dict)
            and isinstance(s.get("key"), str)
            and isinstance(s.get("text"), str)
            and (s.get("column") is None or type(s.get("column")) is int)
        ):
            diags.append(
                _diag(
                    "PS514",
                    "error",
                    f"tool {label}: metadata.slots member at {where} must be "
                    '{"key": KEYWORD, "text": ELISP, "column": INTEGER}',
                )
            )
            continue
        key = _key(s["key"])
        if key is None or key in _RESERVED:
            what = "a keyword" if key is None else "a slot other than :name/:description/:args"
            diags.append(
                _diag(
                    "PS515",
                    "warning",
                    f"tool {label}: dropped the slot {_excerpt(s['key'])} (at {where}/key): "
                    f"the key must be {what}",
                )
            )
            continue
        text = _slot_text(key, s["text"], f"{where}/text", label, trust, diags)
        if text is None:
            if key == ":function":
                out["function_dropped"] = True
            continue
        col = s.get("column")
        new.append({"key": key, "text": text, "column": col if 0 <= (col or 0) < 1 << 20 else None})
    out["slots"] = new
    return out
