"""``json-serialize`` of Emacs 28 (jansson), emulated on the :mod:`.lisp` value model,
with where Emacs 30's own serializer differs.

Owns: turning a Lisp value into the JSON value Emacs would send, with gptel's
arguments (``:null-object :null :false-object :json-false``) or llm's (the defaults,
``:null`` and ``:false``), and signalling exactly where Emacs signals:

* ``nil`` → ``{}``, ``t`` → ``true``, the null/false objects → ``null``/``false``,
  any other symbol → ``wrong-type-argument json-value-p``;
* integers outside the signed 64-bit range → ``args-out-of-range``; infinite or NaN
  floats → an error; a string whose bytes are not UTF-8 → ``wrong-type-argument
  utf-8-string-p``. A string holding raw bytes that do form UTF-8 (the unibyte
  ``"\\xc3\\xa9"``) is sent as that text by Emacs 28, while Emacs 30 refuses every string
  with a raw byte (``wrong-type-argument json-value-p``): :func:`serialize` sends it as 28
  does and hands it to its ``raw`` list, so the caller warns (PS205);
* a list whose first element is not a cons is a plist (keys must be symbols, one
  leading colon stripped when something follows it, odd length → ``consp nil``),
  otherwise an alist of conses (keys kept verbatim); a repeated key keeps its first
  value, and later values are **never converted** (so errors inside them never fire);
* a dotted list → ``wrong-type-argument listp``.

Iterative: nesting depth is bounded by memory only.
"""

from __future__ import annotations

from typing import Any

from plistspec.elisp.datum import Float, Integer, String, Symbol
from plistspec.replay.lisp import LispError, LList, Vec, princ

__all__ = ["serialize", "GPTEL", "LLM", "check_string", "json_text"]

GPTEL = ("gptel", ":null", ":json-false")
LLM = ("llm", ":null", ":false")

_LO, _HI = -(2**63), 2**63 - 1


def check_string(s: str) -> bool:
    """True when ``s`` is valid Unicode text (no raw bytes / lone surrogates)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def json_text(s: str, emacs: int = 28) -> str | None:
    """The text ``json-serialize`` of Emacs ``emacs`` (its major version) sends for the
    Emacs string ``s``, or None when it fails.

    Emacs 28 writes a string's bytes as they are, raw bytes (lone surrogates
    U+DC80..U+DCFF here) included, and signals ``utf-8-string-p`` unless the result is
    valid UTF-8: so the unibyte ``"\\xc3\\xa9"`` is sent as ``"é"``, while ``"\\xe9"``
    alone fails. Emacs 30 refuses any string holding a raw byte (``json-value-p``).
    """
    if emacs >= 30 and not check_string(s):
        return None
    try:
        return s.encode("utf-8", "surrogateescape").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def _scalar(v: Any, flavor: tuple[str, str, str], key: str | None, raw: list[Any]) -> Any:
    if isinstance(v, Symbol):
        n = v.name
        if n == flavor[1]:
            return None
        if n == flavor[2]:
            return False
        if n == "t":
            return True
        hint = ""
        if n.startswith(":") and n in (":json-false", ":false", ":null"):
            hint = f"{n} is not {flavor[0]}'s false/null object"
        elif key == "type":
            hint = f"the symbol `{n}` under :type is not a JSON value"
        else:
            hint = f'the symbol `{n}` is not a JSON value (write the string "{n}")'
        raise LispError("wrong-type-argument", "json-value-p", v, hint)
    if isinstance(v, String):
        text = json_text(v.value)
        if text is None:
            raise LispError(
                "wrong-type-argument",
                "utf-8-string-p",
                v,
                "the string holds raw bytes or characters that are not valid UTF-8",
            )
        if text != v.value:  # raw bytes that form UTF-8: Emacs 30 refuses them
            raw.append(v)
        return text
    if isinstance(v, Integer):
        if not _LO <= v.value <= _HI:
            raise LispError(
                "args-out-of-range",
                "",
                v,
                f"the integer {v.value} is outside the signed 64-bit range",
            )
        return v.value
    if isinstance(v, Float):
        x = v.value
        if x != x or x in (float("inf"), float("-inf")):
            raise LispError("json-out-of-memory", "", v, f"the float {princ(v)} has no JSON form")
        return x
    raise LispError("wrong-type-argument", "json-value-p", v)  # pragma: no cover


def _key_name(k: Any, is_plist: bool) -> str:
    if not isinstance(k, Symbol):
        raise LispError(
            "wrong-type-argument",
            "symbolp",
            k,
            "an object key must be a symbol"
            + (
                "; a list of strings is not a JSON array (write a vector [...])"
                if isinstance(k, String)
                else ""
            ),
        )
    name = k.name
    if "\0" in name:
        raise LispError("wrong-type-argument", "string-without-embedded-nulls-p", k)
    if not check_string(name):
        raise LispError("wrong-type-argument", "utf-8-string-p", k)
    if is_plist and len(name) > 1 and name[0] == ":":
        return name[1:]
    return name


def serialize(
    value: Any, flavor: tuple[str, str, str] = GPTEL, raw: list[Any] | None = None
) -> Any:
    """The JSON (Python) value of Lisp ``value``; raises :class:`LispError` where Emacs 28
    signals. Each string sent that Emacs 30 refuses (raw bytes) is appended to ``raw``."""
    if raw is None:
        raw = []
    # Work items: (lisp value, container, slot, key-hint). ``container[slot] = json``.
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, str | None]] = [(value, root, 0, None)]
    while stack:
        v, cont, slot, hint = stack.pop()
        if isinstance(v, Vec):
            arr: list[Any] = [None] * len(v)
            cont[slot] = arr
            for i in range(len(v) - 1, -1, -1):
                stack.append((v[i], arr, i, hint))
        elif isinstance(v, LList):
            obj: dict[str, Any] = {}
            cont[slot] = obj
            todo: list[tuple[Any, Any, Any, str | None]] = []
            is_plist = not isinstance(v[0], LList)
            n = len(v)
            if is_plist and not isinstance(v[0], Symbol):
                where = (hint if hint.startswith(":") else f":{hint}") + " " if hint else "a value "
                raise LispError(
                    "wrong-type-argument",
                    "consp" if n == 1 else "symbolp",
                    Symbol("nil") if n == 1 else v[0],
                    f"{where}must be a vector, not a list (a list is serialized as an object, "
                    f"whose keys must be symbols)",
                    at=v,
                )
            if is_plist:
                i = 0
                while i < n:
                    k = v[i]
                    if i + 1 >= n:
                        if v.tail is not None:
                            raise LispError("wrong-type-argument", "consp", v.tail)
                        raise LispError(
                            "wrong-type-argument",
                            "consp",
                            Symbol("nil"),
                            f"the plist key {princ(k, True)} has no value (odd-length plist)",
                            at=k,
                        )
                    name = _key_name(k, True)
                    if name not in obj:
                        obj[name] = None
                        todo.append((v[i + 1], obj, name, name))
                    i += 2
            else:
                for pair in v:
                    if not isinstance(pair, LList):
                        raise LispError(
                            "wrong-type-argument", "consp", pair, "an alist element must be a cons"
                        )
                    k = pair[0]
                    if len(pair) > 1:
                        val: Any = LList(pair[1:], pair.src, pair.tail)
                    elif pair.tail is not None:
                        val = pair.tail
                    else:
                        val = Symbol("nil")
                    name = _key_name(k, False)
                    if name not in obj:
                        obj[name] = None
                        # an alist is almost always a mistyped list of plists: messages name
                        # the key the user wrote it under, not the alist's own keys
                        todo.append((val, obj, name, hint))
            if v.tail is not None:
                raise LispError("wrong-type-argument", "listp", v.tail, "a dotted list is not JSON")
            stack.extend(reversed(todo))
        elif isinstance(v, Symbol) and v.name == "nil":
            cont[slot] = {}
        else:
            cont[slot] = _scalar(v, flavor, hint, raw)
    return root[0]
