"""Silencing findings in the source: ``; plistspec: ignore[CODE,...]`` comments.

Owns: finding suppression comments in a text, and the filter they make of the
diagnostics of ``check`` (applied after checking, so a suppression never changes what is
checked, only what is reported).

Syntax (decisions):

* ``; plistspec: ignore[PS333]`` after code on a line silences those codes for the
  findings that start on that line;
* the same comment on a line of its own silences them in the whole form that follows
  (the next datum at that level: a tool form, an arg plist, a slot value...), wherever
  in it the findings start;
* ``;; plistspec: ignore-file[PS333, PS301]`` on any line silences them in the whole
  file.

Codes are written in full and separated by commas; any number of ``;`` may start the
comment and blanks are free. A code the directive silences nowhere is itself a finding
(PS920, at the comment; only for codes that are selected, since a rule turned off
leaves nothing to silence); a code that does not exist, a directive without codes or an
unknown directive is PS921. A syntax error (PS001), an internal error (PS332) and
input/output errors cannot be silenced (:data:`plistspec.checking.selection.ALWAYS`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from plistspec.core.diagnostics import Diagnostic, Fix

__all__ = ["Directive", "find_directives", "apply_suppressions"]

_DIRECTIVE = re.compile(r";[ \t]*plistspec[ \t]*:[ \t]*([^\n]*)")
_BODY = re.compile(r"(ignore-file|ignore)[ \t]*\[([^\]\n]*)\]")
_CODE = re.compile(r"^PS\d{3}$")


@dataclass
class Directive:
    kind: str  # "line", "form" or "file"
    start: int  # the comment's ";"
    end: int  # end of the directive's text
    codes: list[str]
    lo: int = 0  # the silenced region [lo, hi) of offsets ("form"), or the line ("line")
    hi: int = 0
    line: int = 0
    used: set[str] = field(default_factory=set)
    inner: tuple[int, int] = (0, 0)  # the text between the brackets


def _atoms_and_tree(datums: list[Any]) -> list[tuple[int, int]]:
    from plistspec.elisp.datum import atom_spans

    return atom_spans(datums)


def _children(d: Any) -> list[Any] | None:
    from plistspec.elisp.datum import List, Vector

    if isinstance(d, List):
        return list(d.items) + ([d.tail] if d.tail is not None else [])
    if isinstance(d, Vector):
        return list(d.items)
    return None


def _next_form(datums: list[Any], pos: int, cache: dict[int, tuple[list[Any], list[int]]]) -> Any:
    """The datum that follows ``pos`` in the innermost list holding ``pos`` (``cache``
    keeps each list's children and their starts, so many directives cost one pass)."""
    items: list[Any] | None = datums
    key = 0
    while True:
        got = cache.get(key)
        if got is None:
            assert items is not None
            got = cache[key] = (items, [d.start for d in items])
        items, starts = got
        i = bisect_right(starts, pos)
        if i > 0 and items[i - 1].end > pos:
            parent = items[i - 1]
            key = id(parent)
            if key not in cache:
                items = _children(parent)
                if items is None:
                    return None
            continue
        return items[i] if i < len(items) else None


def find_directives(
    text: str, datums: list[Any] | None = None
) -> tuple[list[Directive], list[Diagnostic]]:
    """The suppression directives of ``text`` and a PS921 per malformed one.

    ``datums`` (the text's top-level datums in text order, as
    :func:`plistspec.elisp.recover.read_recovering` gives them) tell comments from ``;``
    inside strings and give the form that follows an own-line directive. When not given,
    the text is read here one top-level form at a time and only the forms a directive
    needs are kept (:func:`_read_needed`), so a big file with a directive costs the
    memory of those forms, not of all.
    """
    if "plistspec" not in text or _DIRECTIVE.search(text) is None:
        return [], []
    places = _places(text)
    needed = _read_needed(text, places) if datums is None else None
    if needed is None:
        if datums is None:
            from plistspec.elisp.recover import read_recovering

            datums = read_recovering(text)[0]  # its recovery decides what is read
        needed = _needed(datums, places)
        datums = None
    return _scan(text, needed)


def _places(text: str) -> list[tuple[int, int]]:
    """``(first, last)`` per directive match, in text order: the offsets of its comment's
    first ``;`` on the line (where :func:`_next_form` looks from) and of the ``;`` the
    match starts at (what the test "inside an atom?" looks at). Only ``;`` lie between,
    and the places of two matches never overlap (at most one match per line)."""
    out: list[tuple[int, int]] = []
    for m in _DIRECTIVE.finditer(text):
        b = m.start()
        a = b
        line_start = text.rfind("\n", 0, b) + 1
        while a > line_start and text[a - 1] == ";":
            a -= 1
        out.append((a, b))
    return out


# Which top-level datums the directives need: those whose span meets a directive's place
# [first, last] (an atom holding ``last`` lies in the span of its top-level datum;
# ``_next_form`` descends into the one holding ``first``), and, when none holds ``first``,
# the first one starting after it (what ``_next_form`` gives then). Top-level spans are
# disjoint and in text order, so on these alone the bisections of ``_next_form`` and of
# the atom test find what they find on all.


def _needed(datums: Iterable[Any], places: list[tuple[int, int]]) -> list[Any]:
    """The needed ones of ``datums`` (the top-level datums of the text, in order: a list
    already read, or read as they are asked for, the others dropped as they come). One
    pass over the datums and the places together."""
    kept: list[Any] = []
    n = len(places)
    nxt = 0  # first place whose "first datum starting after it" is still to come
    low = 0  # first place not wholly before the datums still to come
    before = 0  # the end of the datum before
    for d in datums:
        s, e = d.start, d.end
        keep = False
        while nxt < n and places[nxt][0] < s:
            keep = keep or places[nxt][0] >= before  # no datum holds the place
            nxt += 1
        before = e
        while low < n and places[low][1] < s:
            low += 1
        if low < n and places[low][0] < e:
            keep = True
        if keep:
            kept.append(d)
    return kept


def _read_needed(text: str, places: list[tuple[int, int]]) -> list[Any] | None:
    """The needed top-level datums of ``text``, read a batch of forms at a time (the
    others dropped once looked at), or None when the text does not read cleanly: then
    the recovering reader decides what is read. Reads the same datums as ``read_all``
    (every character checked for lone surrogates, once)."""
    from plistspec.core.diagnostics import ReadError

    try:
        return _needed(_batched(text), places)
    except ReadError:
        return None


def _batched(text: str) -> Iterator[Any]:
    from plistspec.elisp.reader import ReadCache, check_text, read_some
    from plistspec.pipeline.stream import BATCH_CHARS, BATCH_FORMS

    check_text(text)
    cache = ReadCache(clean=True)
    pos = 0
    while True:
        datums, pos = read_some(text, pos, BATCH_FORMS, BATCH_CHARS, cache)
        if not datums:
            return
        yield from datums


def _scan(text: str, datums: list[Any]) -> tuple[list[Directive], list[Diagnostic]]:
    """:func:`find_directives` on ``datums``: all top-level datums of ``text`` or the
    needed ones (same result)."""
    atoms = _atoms_and_tree(datums)
    starts = [a[0] for a in atoms]
    from plistspec.checking.selection import ALWAYS
    from plistspec.core.codes import CODES
    from plistspec.core.diagnostics import line_index

    lines = line_index(text)
    cache: dict[int, tuple[list[Any], list[int]]] = {}
    out: list[Directive] = []
    bad: list[Diagnostic] = []
    for m in _DIRECTIVE.finditer(text):
        pos = m.start()
        i = bisect_right(starts, pos) - 1
        if i >= 0 and atoms[i][0] <= pos < atoms[i][1]:
            continue  # inside a string or another atom, not a comment
        line_start = text.rfind("\n", 0, pos) + 1
        while pos > line_start and text[pos - 1] == ";":
            pos -= 1  # the comment's first ";"
        prefix = text[line_start:pos].strip()
        own_line = prefix == "" or prefix.startswith(";")
        body = m.group(1).rstrip()
        b = _BODY.match(body)
        end = m.end() if b is None else m.start(1) + b.end()
        if b is None:
            bad.append(
                Diagnostic(
                    "PS921",
                    "warning",
                    "invalid suppression comment: write `; plistspec: ignore[CODE,...]` or "
                    "`;; plistspec: ignore-file[CODE,...]`",
                    pos,
                    m.end(),
                )
            )
            continue
        codes: list[str] = []
        problems: list[str] = []
        for raw in b.group(2).split(","):
            c = raw.strip().upper()
            if not c:
                continue
            if not _CODE.match(c) or c not in CODES:
                problems.append(f"unknown code {raw.strip()!r}")
            elif c in ALWAYS:
                problems.append(f"{c} cannot be silenced")
            else:
                codes.append(c)
        if not codes and not problems:
            problems.append("no code named (write the codes to silence, e.g. ignore[PS333])")
        if problems:
            bad.append(
                Diagnostic(
                    "PS921",
                    "warning",
                    "invalid suppression comment: " + "; ".join(problems),
                    pos,
                    end,
                )
            )
        if not codes:
            continue
        d = Directive("file" if b.group(1) == "ignore-file" else "line", pos, end, codes)
        d.inner = (m.start(1) + b.start(2), m.start(1) + b.end(2))
        if d.kind == "line" and own_line:
            form = _next_form(datums, pos, cache)
            if form is None or form.start < 0:
                d.kind, d.lo, d.hi = "form", -1, -1
            else:
                d.kind, d.lo, d.hi = "form", form.start, form.end
        elif d.kind == "line":
            d.line = lines.position(pos)[0]
        out.append(d)
    return out, bad


def apply_suppressions(
    text: str,
    diags: list[Diagnostic],
    enabled: Callable[[str], bool] = lambda code: True,
    datums: list[Any] | None = None,
    path: str | None = None,
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """``(kept, findings)``: ``diags`` without the silenced ones, and the PS920/PS921
    findings about the directives themselves (located in ``text``, not yet filtered by
    selection). ``enabled(code)`` tells whether a code is selected (an unused
    suppression of a code that is off is not reported)."""
    directives, bad = find_directives(text, datums)
    if not directives and not bad:
        return diags, []
    from plistspec.checking.selection import ALWAYS
    from plistspec.core.diagnostics import locate

    # Which directive silences a finding, in O((findings + directives) log): the first
    # file directive naming its code, the first line directive of its line naming it, and
    # the innermost form directive naming it around its start (form spans nest, so per
    # code the form directives around a position are a stack). A suppression another one
    # makes redundant is thus reported unused.
    by_file: dict[str, Directive] = {}
    by_line: dict[tuple[int, str], Directive] = {}
    forms: list[Directive] = []
    for d in directives:
        for c in d.codes:
            if d.kind == "file":
                by_file.setdefault(c, d)
            elif d.kind == "line":
                by_line.setdefault((d.line, c), d)
        if d.kind == "form" and d.lo >= 0:
            forms.append(d)
    forms.sort(key=lambda d: (d.lo, -d.hi))
    stacks: dict[str, list[Directive]] = {}
    j = 0
    silenced = [False] * len(diags)
    for i in sorted(range(len(diags)), key=lambda i: diags[i].start):
        diag = diags[i]
        code = diag.code
        if code in ALWAYS:
            continue
        p = diag.start
        hit: Directive | None = None
        if p >= 0:
            while j < len(forms) and forms[j].lo <= p:
                f = forms[j]
                for c in f.codes:
                    st = stacks.setdefault(c, [])
                    while st and st[-1].hi <= f.lo:
                        st.pop()
                    st.append(f)
                j += 1
            st = stacks.get(code)
            while st and st[-1].hi <= p:
                st.pop()
            if st:
                hit = st[-1]
        if hit is None:
            hit = by_line.get((diag.line, code)) if diag.line else None
        if hit is None:
            hit = by_file.get(code)
        if hit is not None:
            hit.used.add(code)
            silenced[i] = True
    kept = [d for i, d in enumerate(diags) if not silenced[i]]
    findings = list(bad)
    for d in directives:
        unused = [c for c in d.codes if c not in d.used and enabled(c)]
        if unused:
            where = {
                "file": "in this file",
                "line": "on this line",
                "form": "in the form that follows" if d.lo >= 0 else "(no form follows it)",
            }[d.kind]
            findings.append(
                Diagnostic(
                    "PS920",
                    "warning",
                    f"unused suppression: nothing to silence for {', '.join(unused)} {where}",
                    d.start,
                    d.end,
                    fix=_drop_codes(text, d, unused),
                )
            )
    return kept, locate(findings, text, path)


def _drop_codes(text: str, d: Directive, unused: list[str]) -> Fix | None:
    """The fix of a PS920: the unused codes out of the brackets, or the whole directive out
    when no code is left (with its line when it is alone on it). None when text follows
    the directive on its line (it would stop being a comment)."""
    keep = [c for c in d.codes if c not in unused]
    if keep:
        return Fix(d.inner[0], d.inner[1], ", ".join(keep))
    eol = text.find("\n", d.end)
    eol = len(text) if eol < 0 else eol
    if text[d.end : eol].strip():
        return None
    line_start = text.rfind("\n", 0, d.start) + 1
    if not text[line_start : d.start].strip():  # alone on its line: the line goes
        return Fix(line_start, eol + 1 if eol < len(text) else eol, "")
    start = d.start
    while start > line_start and text[start - 1] in " \t":
        start -= 1
    return Fix(start, eol, "")
