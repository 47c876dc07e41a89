"""Reading a file that has a bad form in it: everything else is still read.

Owns: :func:`read_recovering` (all readable top-level datums plus one diagnostic per
unreadable form) and :func:`skip_form` (the lexical extent of a top-level form), shared
by ``check`` and ``to-json`` so that one bad form in a whole ``init.el`` does not hide the
tools in the others. ``PS002`` (syntax plistspec does not read, such as ``#s(...)``) is an
*info*: Emacs reads it, the file is fine, that form is just not looked at; ``PS001`` (a
real syntax error) stays an error.
"""

from __future__ import annotations

from plistspec.core.diagnostics import Diagnostic, ReadError

__all__ = ["read_recovering", "skip_form"]


def read_recovering(text: str) -> tuple[list, list[Diagnostic]]:
    """All top-level datums that can be read, and one diagnostic per unreadable form.

    After an error, reading resumes after the failing top-level form when its brackets
    balance (:func:`skip_form`: syntax plistspec refuses, such as ``#s(...)`` or a
    character beyond Unicode, costs only that form), otherwise at the next line that
    starts with ``(`` (the usual start of a top-level form). ``PS002`` (syntax a tool
    file does not need) is *info*: the file is not wrong, plistspec just does not read it
    -- unless the form it is in never ends (``(setq h #s(a b)`` and nothing closes the
    ``setq``): Emacs cannot load that file, so that is an error at the form.

    Linear in the text: the extents of all forms come from one lexical pass
    (:class:`_FormIndex`), and a form whose brackets never close is read once (every
    later form inside it would end at the same end of input, with the same error).
    """
    from plistspec.elisp.reader import read_all

    try:
        return read_all(text), []
    except ReadError as first_error:
        if first_error.pos < 0:  # pragma: no cover - defensive
            return [], [first_error.diagnostic()]
    blocks = getattr(text, "blocks", None)
    if blocks is None:
        return _recover(text, 0)
    # the source blocks of a Markdown/Org file (plistspec.elisp.orgtangle.ViewText): each
    # read on its own, at the file's offsets, so that one broken block hides no other's
    # tools. A Markdown block is a snippet of its own (a warning: the others are fine);
    # Org's blocks are tangled into one file and loaded so (org-babel-load-file): the
    # blocks after a broken one do not load either, so it stays an error.
    joined = getattr(text, "joined", False)
    datums: list = []
    diags: list[Diagnostic] = []
    for start, end in blocks:
        more, bad = _recover(text[:end], start)
        for d in bad:
            if d.code == "PS001" and d.severity == "error":
                if joined:
                    d.message += (
                        "; tangled (org-babel-load-file), the blocks after this one do not "
                        "load either (plistspec still reads them)"
                    )
                else:
                    d.severity = "warning"  # that snippet is broken; the others are read
                    d.message += "; the rest of this source block is not read"
        datums.extend(more)
        diags.extend(bad)
    return datums, diags


def _recover(text: str, pos: int) -> tuple[list, list[Diagnostic]]:
    """:func:`read_recovering` of ``text`` from offset ``pos`` on."""
    from plistspec.elisp.reader import read_one

    datums: list = []
    diags: list[Diagnostic] = []
    index = _FormIndex(text, pos)
    eof_error = -1  # where the one "unterminated" error at the end of input was reported
    n = len(text)
    while pos < n:
        if eof_error >= 0:
            start = _form_start(text, pos)
            if start < eof_error and index.end_of(text, start) < 0:
                resume = text.find("\n(", pos)
                if resume < 0:
                    break
                pos = resume + 1
                continue
        try:
            d, end = read_one(text, pos)
        except ReadError as e:
            diag = e.diagnostic()
            skipped = index.end_of(text, _form_start(text, pos))
            if diag.code == "PS002":
                if skipped < 0:
                    start = _form_start(text, pos)
                    diag = ReadError(
                        "this form never ends (its brackets do not balance), so Emacs cannot "
                        "load the file",
                        text,
                        start,
                    ).diagnostic()
                else:
                    diag.severity = "info"
                    diag.message += "; plistspec skips this form"
            elif e.message.startswith(("unterminated list", "unterminated vector")):
                eof_error = e.pos
            diags.append(diag)
            if skipped > max(e.pos, pos):
                pos = skipped
                continue
            resume = text.find("\n(", max(e.pos, pos))
            if resume < 0:
                break
            pos = resume + 1
            continue
        if d is None:
            break
        datums.append(d)
        pos = end
    return datums, diags


def _form_start(text: str, pos: int) -> int:
    """The offset of the first token at or after ``pos`` (blanks and comments skipped),
    or ``len(text)``."""
    n = len(text)
    i = pos
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        else:
            break
    return i


_LEX = None


def _lexer():
    import re

    global _LEX
    if _LEX is None:
        _LEX = re.compile(r"[()\[\]\";?\\]")
    return _LEX


class _FormIndex:
    """Where a lexical scan starting at each bracket or string of the text ends.

    One pass over the text with a bracket stack: an opening bracket's end is just after
    its matching closer, -1 when it is never closed or a closer of the other kind comes
    first (every bracket open at that moment fails); a string's end is after its closing
    quote. :meth:`end_of` answers :func:`skip_form` for any start in O(log n)."""

    __slots__ = ("starts", "ends")

    def __init__(self, text: str, i: int = 0) -> None:
        starts: list[int] = []
        ends: list[int] = []
        stack: list[tuple[int, str]] = []  # (event number, expected closer)
        search = _lexer().search
        n = len(text)
        while True:
            m = search(text, i)
            if m is None:
                break
            i = m.start()
            c = text[i]
            if c == "(" or c == "[":
                stack.append((len(starts), ")" if c == "(" else "]"))
                starts.append(i)
                ends.append(-1)
                i += 1
            elif c == ")" or c == "]":
                starts.append(i)
                ends.append(-1)
                if stack and stack[-1][1] == c:
                    ends[stack.pop()[0]] = i + 1
                else:
                    stack.clear()  # a mismatch: every open bracket's scan fails here
                i += 1
            elif c == '"':
                end = _string_end(text, i + 1)
                starts.append(i)
                ends.append(end)
                if end < 0:
                    break
                i = end
            elif c == ";":
                j = text.find("\n", i)
                if j < 0:
                    break
                i = j + 1
            elif c == "\\":
                i += 2
            else:
                i = _after_question_mark(text, i, n)
        self.starts = starts
        self.ends = ends

    def end_of(self, text: str, i: int) -> int:
        """:func:`skip_form` for a form starting at ``i`` (blanks already skipped)."""
        from bisect import bisect_left

        if i >= len(text):
            return -1
        if text[i] in ")]":
            return i + 1
        k = bisect_left(self.starts, i)
        return self.ends[k] if k < len(self.starts) else -1


def _string_end(text: str, i: int) -> int:
    """Just after the closing quote of a string whose body starts at ``i``, or -1."""
    while True:
        j = text.find('"', i)
        if j < 0:
            return -1
        k = j
        while k > i and text[k - 1] == "\\":
            k -= 1
        i = j + 1
        if (j - k) % 2 == 0:
            return i


def _after_question_mark(text: str, i: int, n: int) -> int:
    """Past a ``?`` at ``i``: a character literal unless it is inside a symbol."""
    prev = text[i - 1] if i > 0 else " "
    if prev.isspace() or prev in "()[]'`,\"":
        i += 1
        while i < n and text[i] == "\\":
            i += 2  # ?\x, ?\C-\x, ?\M-\C-x ...
            if i < n and text[i] == "-" and text[i - 1] in "CMSHsA^":
                i += 1
                continue
            break
        else:
            i += 1
        return i
    return i + 1


def skip_form(text: str, pos: int) -> int:
    """The end of the top-level form at or after ``pos``, found lexically (strings,
    comments, ``?x`` characters and escapes respected), or -1 when its brackets do not
    balance. A stray closing bracket counts as a form of its own."""
    n = len(text)
    i = _form_start(text, pos)
    if i >= n:
        return -1
    if text[i] in ")]":
        return i + 1
    search = _lexer().search
    stack: list[str] = []
    while True:
        m = search(text, i)
        if m is None:
            return -1
        i = m.start()
        c = text[i]
        if c in "([":
            stack.append(")" if c == "(" else "]")
            i += 1
        elif c in ")]":
            if not stack or stack.pop() != c:
                return -1
            i += 1
            if not stack:
                return i
        elif c == '"':
            i = _string_end(text, i + 1)
            if i < 0:
                return -1
            if not stack:
                return i
        elif c == ";":
            j = text.find("\n", i)
            if j < 0:
                return -1
            i = j + 1
        elif c == "\\":
            i += 2
        else:
            i = _after_question_mark(text, i, n)
