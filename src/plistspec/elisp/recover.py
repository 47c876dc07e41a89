"""Reading a file that has a bad form in it: everything else is still read.

Owns: :func:`read_recovering` (all readable top-level datums plus one diagnostic per
unreadable form) and :func:`skip_form` (the lexical extent of a top-level form), shared
by ``check`` and ``to-json`` so that one bad form in a whole ``init.el`` does not hide the
tools in the others. ``PS002`` (syntax plistspec does not read, such as ``#s(...)``) is an
*info*: Emacs reads it, the file is fine, that form is just not looked at; ``PS001`` (a
real syntax error) stays an error.
"""

from __future__ import annotations

from plistspec.diagnostics import Diagnostic, ReadError

__all__ = ["read_recovering", "skip_form"]


def read_recovering(text: str) -> tuple[list, list[Diagnostic]]:
    """All top-level datums that can be read, and one diagnostic per unreadable form.

    After an error, reading resumes after the failing top-level form when its brackets
    balance (:func:`skip_form`: syntax plistspec refuses, such as ``#s(...)`` or a
    character beyond Unicode, costs only that form), otherwise at the next line that
    starts with ``(`` (the usual start of a top-level form). ``PS002`` (syntax a tool
    file does not need) is *info*: the file is not wrong, plistspec just does not read it.
    """
    from plistspec.elisp.reader import read_all, read_one

    try:
        return read_all(text), []
    except ReadError as first_error:
        if first_error.pos < 0:  # pragma: no cover - defensive
            return [], [first_error.diagnostic()]
    datums: list = []
    diags: list[Diagnostic] = []
    pos = 0
    n = len(text)
    while pos < n:
        try:
            d, end = read_one(text, pos)
        except ReadError as e:
            diag = e.diagnostic()
            if diag.code == "PS002":
                diag.severity = "info"
                diag.message += "; plistspec skips this form"
            diags.append(diag)
            skipped = skip_form(text, pos)
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


_LEX = None


def skip_form(text: str, pos: int) -> int:
    """The end of the top-level form at or after ``pos``, found lexically (strings,
    comments, ``?x`` characters and escapes respected), or -1 when its brackets do not
    balance. A stray closing bracket counts as a form of its own."""
    import re

    global _LEX
    if _LEX is None:
        _LEX = re.compile(r"[()\[\]\";?\\]")
    n = len(text)
    stack: list[str] = []
    i = pos
    started = False
    while True:
        if not started:
            # skip blanks and comments before the form
            while i < n:
                c = text[i]
                if c.isspace():
                    i += 1
                elif c == ";":
                    j = text.find("\n", i)
                    i = n if j < 0 else j + 1
                else:
                    break
            if i >= n:
                return -1
            if text[i] in ")]":
                return i + 1
            started = True
        m = _LEX.search(text, i)
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
            i += 1
            while True:
                j = text.find('"', i)
                if j < 0:
                    return -1
                k = j
                while k > i and text[k - 1] == "\\":
                    k -= 1
                i = j + 1
                if (j - k) % 2 == 0:
                    break
            if not stack:
                return i
        elif c == ";":
            j = text.find("\n", i)
            if j < 0:
                return -1
            i = j + 1
        elif c == "\\":
            i += 2
        else:  # "?": a character literal unless inside a symbol
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
            else:
                i += 1
