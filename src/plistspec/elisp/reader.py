"""The Emacs Lisp reader: text in, :mod:`plistspec.elisp.datum` values out.

Owns: turning Emacs Lisp source text into datums with the values Emacs 28's ``read``
gives, every datum carrying its ``[start, end)`` character span: the entry points
:func:`read_all` and :func:`read_one`, and the loop that builds datums from tokens
(lists, dotted lists, vectors, the ``'`` ``#'`` `` ` `` ``,`` ``,@`` prefixes) with its
errors for a token that cannot stand where it is. The grammar it implements is written
down in ``grammars/elisp.ebnf``; every rule was checked against ``emacs --batch`` 28.2
(see ``tests/elisp``). The other parts of the reader live next to it:

* :mod:`plistspec.elisp.scanner`: the master regex that finds the next token;
* :mod:`plistspec.elisp.number`: which tokens are numbers, integers of any length;
* :mod:`plistspec.elisp.escapes`: string escapes and ``?c`` character literals;
* :mod:`plistspec.elisp.hash_syntax`: ``#x1F``, ``#24r1k``, ``##`` and refused ``#`` syntax;
* :mod:`plistspec.elisp.errors`: error codes and how messages quote input.

Design (speed and safety; about 18 MB/s and 6.5x the input's size in peak memory on a
10 MB tool file, see ``bench/bench_reader.py``):

* Dispatch is on the scanner match's ``lastindex``; only strings that hold a backslash
  are unescaped, one-character escapes on a fast path.
* Datums are built with ``object.__new__`` and slot stores (no ``__init__`` call), and
  the items of open lists and vectors share one value stack, each list taking an exactly
  sized slice when it closes. The loop binds every name it uses locally.
* No recursion: lists, vectors and the prefixes live on an explicit stack, so 100 000
  levels of nesting read in linear time. A dotted tail that is itself a list,
  ``(a . (b . (c)))``, is spliced into the outer list as it is read (Emacs reads it as
  ``(a b c)``), again in linear time.
* Symbol names are interned through a per-read dict, so 10 000 ``:type`` keywords share
  one ``str``; other symbol-or-number tokens are classified once per read. Reads of one
  text form after form can share these dicts (:class:`ReadCache`).
* The collector is off while reading, and a big read's datums go straight to its oldest
  generation (see :func:`_read`).
* The text is the decoded buffer: the CLI drops a BOM and decodes CRLF/CR line endings
  as Emacs does before reading (:mod:`plistspec.elisp.eol`). A raw byte (invalid UTF-8
  decoded with ``surrogateescape``: U+DC80..U+DCFF) is a character, as in Emacs; any
  other lone surrogate is an error.
* Importing is cheap (the CLI imports this module on every run): only the scanner's
  regex is compiled at import; the rest compile on first use.

Quirks of Emacs 28 that are kept (all verified, and alike in Emacs 30): ``#`` ends a
symbol (``a#b`` is ``a`` then ``#b...``); ``.`` followed by ``)`` is the symbol ``\\.``;
control characters and NBSP are whitespace between tokens; ``?\\C-a``, ``?\\^?``,
``\\M-`` in strings (a raw byte), ``\\xe9`` (a raw byte) versus ``\\x0e9`` (a character).
Syntax a tool file never needs (``#s(``, ``#1=``, ``#[``, ``#@``, ``#$``, ``#:``, ``#_``,
``#(``, ``#&``, ``#^[``, ``#!``) is refused with ``PS002``, never misread. A string
character Emacs has but Python text cannot hold (a surrogate code point such as
``"\\ud800"``, a character beyond Unicode such as ``"\\x3fff7f"``) reads as the marker
:data:`UNREPRESENTABLE`, which, like the real character in ``json-serialize``, can never
be sent as JSON; the file still reads.

Where Emacs 28 and Emacs 30 disagree, plistspec reads neither version's datum: a PS001
error names what each does (users run both). ``(. x)`` (``x`` in 28, an error in 30);
``.`` followed by a no-break space (the symbol ``\\.`` in 28, the dotted-pair marker in
30); the escapes of :mod:`plistspec.elisp.escapes` (``\\x`` without a hex digit,
``\\C-`` on a non-ASCII letter). ``tests/elisp/test_reader_emacs.py`` holds each
version's reading of these texts.
"""

from __future__ import annotations

import gc
import sys

from plistspec.core.diagnostics import ReadError
from plistspec.elisp.datum import Datum, Integer, List, String, Symbol, Vector
from plistspec.elisp.errors import SYNTAX, line_col, read_error
from plistspec.elisp.escapes import (
    UNREPRESENTABLE,
    char_literal,
    unescape_full,
    unescape_string,
)
from plistspec.elisp.hash_syntax import read_hash
from plistspec.elisp.number import classify_atom, classify_token
from plistspec.elisp.scanner import (
    TOK_ATOM,
    TOK_CLOSE,
    TOK_CLOSE_VEC,
    TOK_OPEN,
    TOK_OPEN_VEC,
    TOK_OTHER,
    TOK_PLAIN,
    TOK_PREFIXES,
    TOK_STRING,
    TOKENS,
)

__all__ = [
    "read_all",
    "read_one",
    "read_some",
    "ReadCache",
    "check_text",
    "classify_token",
    "ReadError",
    "UNREPRESENTABLE",
]

# Names that tests import from here, where they lived when this module held the whole
# reader.
_unescape_string = unescape_string
_unescape_full = unescape_full

# Frame kinds on the explicit stack. A frame is (kind, mark, start, extra): ``mark`` is
# where the frame's datums begin on the value stack, ``extra`` the tail of a dotted list
# or a prefix's text.
_TOP, _VEC, _PREFIX, _TAIL, _LIST, _CLOSING, _SPLICED, _SPLICED_CLOSING = range(8)
_PREFIX_NAMES = {"'": "quote", "#'": "function", "`": "`", ",": ",", ",@": ",@"}
_LIST_MIN = _LIST  # kinds >= _LIST are lists that a `)` closes

_WRONG_DOT = "`.` in wrong context: a dotted list has exactly one datum after `.`"
_DOT_FIRST = (
    "`.` with nothing before it in a list: Emacs 30 refuses this (Emacs 28 read `(. x)` as x)"
)
_DOT_NBSP = (
    "`.` followed by a no-break space: Emacs 28 and Emacs 30 read this differently (28 the "
    "symbol `\\.`, 30 the dot of a dotted list, and Emacs 30 refuses this where no dotted "
    "pair can stand); write a plain space, or `\\.` for the symbol"
)


# Above this many characters read, the new datums are moved to the collector's oldest
# generation at once (see _read).
_PROMOTE_CHARS = 1_000_000


class ReadCache:
    """What one read learns about tokens, kept for the next reads of the same text
    (:func:`read_one` form after form): ``syms`` maps a plain symbol token to its
    interned name, ``atoms`` any other symbol-or-number token to ``(datum class,
    value)``. Neither depends on where the token stands, so sharing them changes no
    datum; it spares each read relearning the names every form repeats. ``clean``: the
    caller found no lone surrogate in the whole text (:func:`check_text`), so no read
    looks for one in its part again."""

    __slots__ = ("syms", "atoms", "clean")

    def __init__(self, clean: bool = False) -> None:
        self.syms: dict[str, str] = {}
        self.atoms: dict[str, tuple[type, object]] = {}
        self.clean = clean


def _read(
    text: str, pos: int, one: int, cache: ReadCache | None = None, span: int = sys.maxsize
) -> tuple[list[Datum], int]:
    """The engine: read datums from ``pos``; stop after ``one`` of them (0: all), or once
    they reach ``span`` characters past ``pos``.

    The collector is off while reading (millions of small objects, no cycles: spare its
    passes). Back on, it would find every datum in its youngest generation and walk them
    all twice (promoting them to the middle, then the oldest generation): after a 10 MB
    read, as long as the read itself. A big read therefore moves the young objects to the
    oldest generation directly (``gc.freeze()`` then ``gc.unfreeze()``, no walk); this
    only makes them old, the collector still frees them as usual."""
    gc_was = gc.isenabled()
    gc.disable()
    try:
        result = _read_loop(text, pos, one, cache, span)
    finally:
        if gc_was:
            gc.enable()
    if gc_was and result[1] - pos > _PROMOTE_CHARS:
        gc.freeze()
        gc.unfreeze()
    return result


def _finish_list(items: list[Datum], tail: Datum | None, start: int, end: int) -> Datum:
    """Normalize a read list as Emacs stores it: ``(a . nil)`` is ``(a)``, ``(a . 'b)``
    is ``(a quote b)``, ``()`` is ``nil`` (``(. x)`` never gets here: it is an error)."""
    while tail is not None:
        if type(tail) is Symbol and tail.name == "nil":
            tail = None
        elif type(tail) is List:
            items.extend(tail.items)
            tail = tail.tail
        else:
            break
    if not items:
        if tail is not None:
            return tail
        return Symbol("nil", start, end)
    return List(items, start, end, tail)


def _read_loop(
    text: str, pos: int, one: int, cache: ReadCache | None = None, span: int = sys.maxsize
) -> tuple[list[Datum], int]:
    """The token loop. Hot path, so: local names only; datums are made with
    ``object.__new__`` and direct slot stores (a class call runs ``__init__``, three
    times slower); the datums of all open lists and vectors share one value stack and
    each list takes an exactly sized slice of it when it closes (no over-allocated
    ``list.append`` growth left in the result)."""
    TOP, VEC, PREFIX, TAIL, LIST = _TOP, _VEC, _PREFIX, _TAIL, _LIST
    CLOSING, SPLICED, SPLICED_CLOSING, LIST_MIN = _CLOSING, _SPLICED, _SPLICED_CLOSING, _LIST_MIN
    PLAIN, OPEN, CLOSE, STRING, ATOM = TOK_PLAIN, TOK_OPEN, TOK_CLOSE, TOK_STRING, TOK_ATOM
    OPEN_VEC, CLOSE_VEC, OTHER = TOK_OPEN_VEC, TOK_CLOSE_VEC, TOK_OTHER
    PREFIXES, PREFIX_NAMES = TOK_PREFIXES, _PREFIX_NAMES
    Symbol_, String_, List_, Vector_ = Symbol, String, List, Vector
    new = object.__new__
    intern = sys.intern
    unescape = unescape_string
    if cache is None:
        cache = ReadCache()
    syms = cache.syms  # plain symbol token -> its (interned, shared) name
    atoms = cache.atoms  # other token -> (datum class, value)
    vals: list[Datum] = []  # the value stack; the top-level results sit at its bottom
    append = vals.append
    stack: list[tuple] = [(TOP, 0, pos, None)]
    push = stack.append
    pop = stack.pop
    kind = TOP
    d: Datum
    # One match at a time (findall would hold every token at once and double the peak);
    # scanner.match, not finditer: no search loop, every position starts a token.
    for m in iter(TOKENS.scanner(text, pos).match, None):
        i = m.lastindex
        if i == PLAIN:
            tok = m[1]
            d = new(Symbol_)
            try:
                d.name = syms[tok]
            except KeyError:
                d.name = syms[tok] = intern(tok)
            d.start = m.start(1)
            d._len = len(tok)
            if kind == LIST:
                append(d)
                continue
        elif i == OPEN:
            if kind == TAIL:
                # `(a . (b c))`: the inner list's items go straight into the outer one.
                kind = SPLICED
            else:
                kind = LIST
            push((kind, len(vals), m.start(2) - 1, None))
            continue
        elif i == CLOSE:
            if kind < LIST_MIN:
                _syntax_error(text, ")", m.start(3) - 1, stack)
            _, mark, start, tail = pop()
            if kind >= SPLICED:
                # Hand the spliced list's tail to the outer list, which must close next.
                pop()  # the outer list's TAIL frame
                okind, omark, ostart, _ = stack[-1]
                kind = SPLICED_CLOSING if okind >= SPLICED else CLOSING
                stack[-1] = (kind, omark, ostart, tail)
                continue
            items = vals[mark:]
            del vals[mark:]
            if tail is None and items:
                d = new(List_)
                d.items = items
                d.tail = None
                d.start = start
                d._len = m.start(3) - start
            else:
                d = _finish_list(items, tail, start, m.start(3))
            kind = stack[-1][0]
        elif i == STRING:
            body = m[4]
            if "\\" in body:
                body = unescape(body, text, m.start(4))
            d = new(String_)
            d.value = body
            d.start = start = m.start(4) - 1
            d._len = m.end() - start
            if kind == LIST:
                append(d)
                continue
        elif i == ATOM:  # a number, or a symbol with escapes or a leading dot
            tok = m[6]
            start = m.start(6)
            v = atoms.get(tok)
            if v is None:
                v = atoms[tok] = classify_atom(tok, text, start)
            if tok == "." and text.startswith("\xa0", start + 1):
                raise read_error(_DOT_NBSP, text, start)
            d = v[0](v[1], start, start + len(tok))
        elif i == OTHER:
            p = m[13]
            if not p:  # the end of the input
                break
            start = m.start(13)
            if p == "." and (kind == LIST or kind == SPLICED):  # the dot of a dotted list
                if len(vals) == stack[-1][1]:
                    raise read_error(_DOT_FIRST, text, start)
                push((TAIL, 0, start, None))
                kind = TAIL
                continue
            elif p[0] == "?" and (len(p) > 1 or start + 1 < len(text)):
                code, end = char_literal(text, start)
                if end != m.end():  # pragma: no cover - the regex and char_literal agree
                    raise read_error(f"invalid character literal {text[start:end]!r}", text, start)
                d = Integer(code, start, end, True)
            elif p[0] == "#" and len(p) > 1:  # ##, #x1F, #24r1k
                d, end = read_hash(text, start)
                if end != m.end():  # pragma: no cover - the regex and read_hash agree
                    raise read_error(f"invalid syntax {text[start:end]!r}", text, start)
            else:
                _syntax_error(text, p, start, stack)
        elif i == OPEN_VEC:
            kind = VEC
            push((VEC, len(vals), m.start(7) - 1, None))
            continue
        elif i == CLOSE_VEC:
            if kind != VEC:
                _syntax_error(text, "]", m.start(8) - 1, stack)
            _, mark, start, _ = pop()
            d = new(Vector_)
            d.items = vals[mark:]
            del vals[mark:]
            d.start = start
            d._len = m.start(8) - start
            kind = stack[-1][0]
        else:  # a prefix: ' #' ` ,@ ,
            pre = PREFIXES[i]
            kind = PREFIX
            push((PREFIX, 0, m.start(i) - len(pre), pre))
            continue

        # Deliver the datum d to the frame on top of the stack.
        if kind == LIST:
            append(d)
            continue
        while kind == PREFIX:
            _, _, ps, pre = pop()
            head = new(Symbol_)
            head.name = PREFIX_NAMES[pre]
            head.start = ps
            head._len = len(pre)
            q = new(List_)
            q.items = [head, d]
            q.tail = None
            q.start = ps
            q._len = d.start + d._len - ps
            d = q
            kind = stack[-1][0]
        if kind == TAIL:
            pop()
            okind, omark, ostart, _ = stack[-1]
            kind = SPLICED_CLOSING if okind >= SPLICED else CLOSING
            stack[-1] = (kind, omark, ostart, d)
            continue
        if kind == CLOSING or kind == SPLICED_CLOSING:
            raise read_error(_WRONG_DOT, text, d.start)
        append(d)
        if one and kind == TOP and (len(vals) >= one or m.end() - pos >= span):
            return vals, m.end()
    # End of input.
    if kind != TOP:
        for frame in reversed(stack):
            if frame[0] in (LIST, VEC, CLOSING, SPLICED, SPLICED_CLOSING):
                what = "vector" if frame[0] == VEC else "list"
                raise read_error(
                    f"unterminated {what} starting at {line_col(text, frame[2])}", text, frame[2]
                )
        top = stack[-1]
        raise read_error(f"end of input after `{top[3]}`: expected an expression", text, top[2])
    return vals, len(text)


def _syntax_error(text: str, tok: str, where: int, stack: list[tuple]) -> None:
    """Raise the error for a token that cannot stand where it is."""
    top = stack[-1]
    kind = top[0]
    if tok == '"':
        raise read_error(f"unterminated string starting at {line_col(text, where)}", text, where)
    if tok == "\\":
        raise read_error("end of input after a backslash", text, where)
    if tok == "?":
        raise read_error("end of input after ?", text, where)
    if tok == "#":
        read_hash(text, where)  # raises the precise error
    if tok == ".":
        if kind == _VEC:
            raise read_error("`.` inside a vector", text, where)
        if kind == _TOP:
            raise read_error("`.` outside a list", text, where)
        if kind == _PREFIX:
            raise read_error(f"`.` right after `{top[3]}`: expected an expression", text, where)
        raise read_error(_WRONG_DOT, text, where)
    if tok not in (")", "]"):  # pragma: no cover - the regex yields no other token here
        raise read_error(f"unexpected {tok!r}", text, where)
    # ) or ] that closes nothing open
    if kind == _TOP:
        raise read_error(f"unexpected `{tok}`: no list or vector is open", text, where)
    if kind == _PREFIX:
        raise read_error(f"`{tok}` right after `{top[3]}`: expected an expression", text, where)
    if kind == _TAIL:
        raise read_error(
            f"`{tok}` right after `.`: expected the tail of a dotted list", text, where
        )
    if tok == ")":
        raise read_error(f"`)` inside the vector opened at {line_col(text, top[2])}", text, where)
    raise read_error(f"`]` inside the list opened at {line_col(text, top[2])}", text, where)


_SURROGATE_CHUNK = 1 << 16


def _check_surrogates(text: str, start: int, end: int) -> None:
    """Refuse a lone surrogate that is not a raw byte.

    A raw byte (U+DC80..U+DCFF: what ``surrogateescape`` makes of a byte of invalid
    UTF-8) is a character of the buffer, as Emacs holds the raw bytes of a file it
    decodes as UTF-8: it reads in comments, strings and symbols as Emacs reads it. Any
    other surrogate (only a ``str`` given to the library can hold one) is no character
    of Emacs. Encoding finds one several times faster than a regex search; chunks keep
    the bytes small; an ASCII text (the common case) needs no scan at all."""
    if text.isascii():
        return
    step = _SURROGATE_CHUNK
    for i in range(start, end, step):
        try:
            text[i : min(i + step, end)].encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as e:
            raise ReadError(
                f"invalid text: a lone surrogate U+{ord(text[i + e.start]):04X}, which is no "
                "character of Emacs",
                text,
                i + e.start,
                SYNTAX,
            ) from None


def read_all(text: str) -> list[Datum]:
    """Every top-level datum of ``text`` (comments skipped), in order.

    Raises :class:`ReadError` (``PS001`` syntax error, ``PS002`` refused syntax).
    """
    _check_surrogates(text, 0, len(text))
    return _read(text, 0, False)[0]


def check_text(text: str) -> None:
    """Raise the :class:`ReadError` :func:`read_all` gives for a lone surrogate (what
    ``surrogateescape`` makes of invalid UTF-8) anywhere in ``text``; else nothing."""
    _check_surrogates(text, 0, len(text))


def read_some(
    text: str, pos: int, forms: int, chars: int, cache: ReadCache | None = None
) -> tuple[list[Datum], int]:
    """The next datums at or after ``pos`` as :func:`read_one` gives them one after the
    other, up to ``forms`` of them, stopping early after the first one that ends
    ``chars`` or more characters past ``pos`` (fewer at the end of the input, none
    there), and where the next read starts: just after the last one, or the end of the
    input when the read reached it. One call per batch: what a call of the reader costs
    is paid once."""
    results, end = _read(text, pos, forms, cache, chars)
    if cache is None or not cache.clean:
        _check_surrogates(text, pos, end)
    return results, end


def read_one(text: str, pos: int = 0, cache: ReadCache | None = None) -> tuple[Datum | None, int]:
    """The next datum at or after ``pos`` and the offset just after it; ``(None, len)``
    at the end of the input. ``cache``: one :class:`ReadCache` handed to every call
    that reads the same text form after form (the same datums, faster)."""
    results, end = _read(text, pos, True, cache)
    if cache is None or not cache.clean:
        _check_surrogates(text, pos, end)
    if not results:
        return None, end
    return results[0], end
