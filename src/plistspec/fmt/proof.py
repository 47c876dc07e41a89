"""fmt's cheap proof that a rewritten tool form reads as the same call.

Owns: :func:`same_call`. fmt must never change what a form sends; the full proof reads
the new text back and lowers it again (:func:`plistspec.fmt.verify.verify`). Most rewrites
only move whitespace, comments and slots, or respell a string (a newline written as
``\\n``, a ``\\<newline>`` continuation dropped): then the reader's tokens
(:data:`plistspec.elisp.scanner.TOKENS`, whitespace and comments skipped) of the two
texts are the same, strings compared by their value and the ``:key value`` slots taken
as a map. Emacs then reads the same head and the same value for every key, and
``gptel-make-tool`` / ``llm-make-tool`` take keyword arguments (``cl-defun &key``), so
the call is the same and so is everything sent. Anything else (a repeated or dangling
key, a changed structure, a token whose meaning depends on the layout, such as ``#@N``)
is not proven here and goes the full way.
"""

from __future__ import annotations

import re
from itertools import accumulate, compress, repeat

from plistspec.elisp.scanner import TOKENS

__all__ = ["comment_lines", "same_call", "same_tokens", "tokens"]

_BLANKS = r"[\x00-\x20\xa0]*+(?:;[^\n]*+[\x00-\x20\xa0]*+)*+"


def _uncaptured(pattern: str) -> str:
    """``pattern`` with its capturing groups made non-capturing."""
    out = []
    in_class = escaped = False
    for k, c in enumerate(pattern):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif in_class:
            in_class = c != "]" or pattern[k - 1] == "["
        elif c == "[":
            in_class = True
        elif c == "(" and not pattern.startswith("?", k + 1):
            out.append("(?:")
            continue
        out.append(c)
    return "".join(out)


assert TOKENS.pattern.startswith(_BLANKS)
_TOKEN = _uncaptured(TOKENS.pattern[len(_BLANKS) :])
# findall: each token's whole text (the last one empty: the end of the input)
_WHOLE = re.compile(_BLANKS + "(" + _TOKEN + ")")
# `#` tokens whose value is their text alone (anything else, such as `#@N`, depends on
# the layout: not proven)
_SAFE_HASH = re.compile(r"#'|##|#[xXoObB][+-]?[0-9A-Za-z]*|#[0-9]+[rR][+-]?[0-9A-Za-z]*")
# a string body whose only escapes are \\, \", \n and \<newline> (which reads as nothing)
_SIMPLE_BODY = re.compile(r'(?:[^\\]|\\[\\"n\n])*+')
# in such a body: an escape kept (group 1) or a \<newline> dropped
_CONTINUATION = re.compile(r'(\\[\\"n])|\\\n')
# a `#` not starting `#'` (only then can a `#` token be one whose meaning is its layout)
_OTHER_HASH = re.compile(r"#(?!')")
_COMMENT = re.compile(r";[^\n]*")
_PREFIXES = frozenset(("'", "#'", "`", ",@", ","))
_DEPTH = {"(": 1, "[": 1, ")": -1, "]": -1}
_NOT_HEAD = "()[]\"\\?#.,'`"


def tokens(text: str) -> list[str]:
    """The text of each token of ``text`` as :data:`TOKENS` splits it (whitespace and
    comments dropped), the last one empty (the end of the input)."""
    toks = _WHOLE.findall(text)
    if len(toks) > 1 and not toks[-2]:
        # blanks at the end: one match takes them with the end, then the end matches again
        toks.pop()
    return toks


def _value(tok: str) -> str | None:
    """A token as compared: a string literal by its value (``"`` + value), anything
    else by its text; None when a string literal does not read."""
    if tok[0] != '"':
        return tok
    if len(tok) < 2 or tok[-1] != '"':
        return None
    body = tok[1:-1]
    if "\\" not in body:
        return tok[:-1]
    from plistspec.elisp.escapes import unescape_string

    try:
        return '"' + unescape_string(body, tok, 1)
    except Exception:  # noqa: BLE001 - not proven: the full path decides
        return None


def _call(toks: list[str]) -> tuple[str, dict[str, tuple[str, ...]]] | None:
    """``(head, {key: value tokens})`` of the tokens of a ``(head :key value ...)``
    form; None when it is not exactly that, with each key once. The items are found by
    nesting depth (computed at C speed): the tokens after which the depth is 1 end the
    head, each key, each prefix and each value."""
    n = len(toks)
    if n < 4 or toks[0] != "(" or toks[-2] != ")" or toks[-1]:
        return None
    depths = list(accumulate(map(_DEPTH.get, toks, repeat(0))))
    if depths[-2] != 0 or min(depths[:-2]) < 1:
        return None
    ends = list(compress(range(n), map((1).__eq__, depths)))
    head = toks[1]
    if len(ends) < 2 or ends[1] != 1 or head[0] in _NOT_HEAD:
        return None
    slots: dict[str, tuple[str, ...]] = {}
    i, m = 2, len(ends)
    while i < m:
        k = ends[i]
        key = toks[k]
        if key[0] != ":" or "\\" in key or key in slots or ends[i - 1] != k - 1:
            return None
        i += 1
        while i < m and toks[ends[i]] in _PREFIXES:
            i += 1
        if i >= m:
            return None
        slots[key] = tuple(toks[k + 1 : ends[i] + 1])
        i += 1
    if ends[-1] != n - 3:
        return None
    return head, slots


def _same_values(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Two token runs read the same (strings by value)."""
    if a == b:
        return True
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x != y:
            if x[0] != '"':
                return False
            if len(x) > 1 and x[-1] == '"' and _SIMPLE_BODY.fullmatch(x, 1, len(x) - 1):
                # spelt as the printer spells it: continuations dropped, newlines as \n
                s = x
                if "\\\n" in x:
                    # with no \\ every \<newline> is a continuation, else the regex tells
                    s = _CONTINUATION.sub(r"\1", x) if "\\\\" in x else x.replace("\\\n", "")
                if s.replace("\n", "\\n") == y:
                    continue  # the same escapes of the same characters: the same value
            v = _value(x)
            if v is None or v != _value(y):
                return False
    return True


def same_call(old: str, new: str) -> bool:
    """``old`` and ``new`` (each one whole call form) are proven to be the same call
    (module doc); False: not proven here."""
    a, b = tokens(old), tokens(new)
    for text, toks in ((old, a), (new, b)):
        if (
            "#" in text
            and _OTHER_HASH.search(text)
            and any(t[0] == "#" and not _SAFE_HASH.fullmatch(t) for t in toks if t)
        ):
            return False
    if a != b:
        same = _same_values(tuple(a), tuple(b)) if len(a) == len(b) else False
        if not same:
            ca, cb = _call(a), _call(b)
            if ca is None or cb is None or ca[0] != cb[0]:
                return False
            sa, sb = ca[1], cb[1]
            if sa.keys() != sb.keys() or not all(_same_values(v, sb[k]) for k, v in sa.items()):
                return False
    return True


# findall: (the blanks and comments before a token, the token), the last token empty
_PAIRS = re.compile("(" + _BLANKS + ")(" + _TOKEN + ")")


def same_tokens(old: str, new: str) -> bool:
    """``old`` and ``new`` differ only in blanks: the same tokens, each spelt the same
    (a string literal by its source text, not its value), and the same comments in the
    same order (trailing blanks aside). What ``fmt``'s layout must keep."""
    a, b = _PAIRS.findall(old), _PAIRS.findall(new)
    if len(a) != len(b) or any(x[1] != y[1] for x, y in zip(a, b, strict=True)):
        return False
    return _comments(a) == _comments(b)


def _comments(pairs: list[tuple[str, str]]) -> list[str]:
    return [c.rstrip() for gap, _ in pairs if ";" in gap for c in _COMMENT.findall(gap)]


def comment_lines(text: str) -> list[str]:
    """The comments of ``text`` in order (trailing blanks aside), as :func:`same_tokens`
    compares them."""
    return _comments(_PAIRS.findall(text))
